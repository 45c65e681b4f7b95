import { definePlugin } from '../../kernel/host/plugin.js';
import type { ReportedEvidence, ValidatorUpdate } from '../../kernel/context/contexts.js';

/**
 * A state plugin that changes the validator set on a script: the updates listed for a height are
 * what its endBlock returns at that height (the scripts a staking plugin would derive from
 * stake). It also records every piece of evidence the `evidence` hook hands it.
 */
export function setChanger(script: ReadonlyMap<number, readonly ValidatorUpdate[]>) {
  const seen: ReportedEvidence[] = [];
  const plugin = definePlugin({
    name: 'set-changer',
    kind: 'state',
    description: 'test plugin: validator updates on a script',
    register(api) {
      api.hooks.endBlock.tapPromise(api.name, async (result, ctx) => {
        const updates = script.get(ctx.block.height);
        return updates === undefined ? result : { ...result, validatorUpdates: [...result.validatorUpdates, ...updates] };
      });
      api.hooks.evidence.tapPromise(api.name, async (_ctx, ev) => {
        seen.push(ev);
      });
    },
  });
  return { plugin, seen };
}
