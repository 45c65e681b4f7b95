import { Type } from '@sinclair/typebox';
import { definePlugin, fractionText, type NodeServices } from '../../kernel/sdk.js';
import { append, decisionsOf } from './log.js';
import { modelId, registerModel } from './registry.js';
import { AI_RECORDS_STORES, models } from './store.js';
import { AI_RECORDS_EVENTS, oracleDecision } from './events.js';
import { AI_RECORDS_ROUTES, aiRecordsRoutes } from './routes.js';
import { exportRoutes } from './export.js';

interface GenesisModel {
  name: string;
  version: string;
  weights_hash: string;
  architecture: string;
  params_count: number;
  accuracy_bp: number;
}

const OptionsSchema = Type.Object(
  {
    /** Models registered (active) at genesis: the network's founding validators' registration (the sentinel's on shipped networks). */
    genesis_models: Type.Array(
      Type.Object(
        {
          name: Type.String({ minLength: 1 }),
          version: Type.String({ minLength: 1 }),
          weights_hash: Type.String({ pattern: '^0x[0-9a-f]{64}$' }),
          architecture: Type.String({ minLength: 1 }),
          params_count: Type.Integer({ minimum: 0 }),
          accuracy_bp: Type.Integer({ minimum: 0, maximum: 10_000 }),
        },
        { additionalProperties: false },
      ),
      { default: [] },
    ),
  },
  { additionalProperties: false },
);

/**
 * AI records: the decision log, written in consensus from the decisions other plugins announce
 * as events in the block (read in endBlock with `ctx.blockEvents()`; list this plugin after
 * them), and the validators' model registry. It changes no voting power, proposer choice or
 * threshold (part 1 Consensus 9).
 */
export const aiRecordsPlugin = definePlugin<{ genesis_models: GenesisModel[] }, NodeServices>({
  name: 'ai-records',
  kind: 'state',
  description: 'AI decision log derived from block events, and the on-chain model registry',
  optionsSchema: OptionsSchema,
  operations: [registerModel],
  routes: AI_RECORDS_ROUTES,
  stores: AI_RECORDS_STORES,
  events: AI_RECORDS_EVENTS,
  register(api) {
    api.hooks.initGenesis.tapPromise(api.name, async (ctx) => {
      for (const m of api.options.genesis_models) {
        const id = modelId(m.name, m.version, m.weights_hash);
        models.set(ctx.store, id, { id, name: m.name, version: m.version, weights_hash: m.weights_hash, architecture: m.architecture, params_count: m.params_count, accuracy_bp: BigInt(m.accuracy_bp), status: 'active', votes: [], registered_height: 0, activated_height: 0 });
      }
    });
    api.hooks.endBlock.tapPromise(api.name, async (result, ctx) => {
      const decisions = ctx.blockEvents().flatMap(decisionsOf);
      const entries = await append(ctx.store, { height: ctx.block.height, timestamp: ctx.block.timestamp }, decisions);
      for (const e of entries) {
        oracleDecision.emit(ctx, { id: e.id, model: e.model, kind: e.kind, subject: e.subject, decision: e.decision, confidence: fractionText(e.confidence_bp), timestamp: e.timestamp, height: e.height, tx_hash: e.tx_hash });
      }
      return result;
    });
    api.hooks.routes.tap(api.name, (routes) => routes.withOwner(api.name, () => {
        aiRecordsRoutes(routes, api.services, api.name);
        exportRoutes(routes, api.services, api.name);
      }));
  },
});
