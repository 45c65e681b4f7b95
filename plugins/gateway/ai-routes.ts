import { badRequest, firstRefusal, forbidden, unavailable, type DeclaredRoute, type RouteTable, type RpcRequest } from '../../kernel/sdk.js';
import { aiRateLimited } from './ai-budget.js';
import { AI_ROUTES, AskBody, ReauditBody } from './ai-declarations.js';
import type { AiParts } from './ai-parts.js';
import { ASSISTANT_MODEL } from './assistant/docs-search.js';
import { analysisRefusal, isAnalyzerMissing } from './generator/contract-generator.js';
import { parseJsonLossless } from './lossless-json.js';
import { isObject, type NodeAnswer } from './node-client.js';
import { passThrough } from './proxy-routes.js';
import { AuditBody } from './schemas.js';
import type { GatewayServices } from './services.js';

export const ANALYZE_PATH = '/api/v1/contracts/analyze';

/** decisions.md §52: an audit takes bytecode only; these fields would carry source code. */
const SOURCE_FIELDS = ['source', 'source_code', 'code'] as const;

/**
 * The gateway's contract-security and AI routes (decisions.md §47–48, §52): audit and reaudit
 * (the node's analysis, unchanged), generate, the attestation forwarded, the documentation
 * assistant. The contract-security submissions and reads of part 1 (certify, whitelist, score,
 * certificates, templates) are the analyzer's and the contracts plugin's declared operations and
 * routes, proxied like every plugin's (operation-routes.ts, proxy-routes.ts). audit, reaudit,
 * generate and assistant/ask spend the one AI_RL_MAX_RPM budget per client IP before anything else.
 */
export function registerAiRoutes(routes: RouteTable, s: GatewayServices, ai: Pick<AiParts, 'generator' | 'docs'>): void {
  const analyze = (body: unknown, text?: string): Promise<NodeAnswer> => s.client.request(s.router.nodesOfShard(0), 'POST', ANALYZE_PATH, body, text);
  /** The node's answer as it is, except a node without the analyzer's route (503: the request cannot be served anywhere). */
  const analysisAnswer = (route: string, a: NodeAnswer): unknown => {
    s.metrics.proxied.inc({ route, status: String(a.status) });
    if (isAnalyzerMissing(a)) throw analysisRefusal(a);
    return passThrough(a);
  };
  const budgeted = <R extends DeclaredRoute>(route: R, handler: (req: RpcRequest) => Promise<unknown> | unknown): void => {
    routes.serve(route, aiRateLimited(s.aiBudget, (req) => handler(req.raw)));
  };

  budgeted(AI_ROUTES.audit, async (req) => {
    const body = req.body ?? {};
    if (isObject(body)) {
      const source = SOURCE_FIELDS.find((f) => f in body);
      if (source !== undefined) throw badRequest(`contract audit takes bytecode only: "${source}" is refused, source code is not accepted`, 'send {"bytecode_hex": "<hex of the compiled WebAssembly>"}');
    }
    const refused = firstRefusal(AuditBody, body);
    if (refused) throw badRequest(`contract audit: ${refused.name}: ${refused.message}`, 'send {"bytecode_hex": "<hex>"}; source code is not accepted');
    return analysisAnswer(AI_ROUTES.audit.path, await analyze(body, req.bodyText));
  });

  budgeted(AI_ROUTES.reaudit, async (req) => {
    const refused = firstRefusal(ReauditBody, req.body ?? {});
    if (refused) throw badRequest(`contract reaudit: ${refused.name}: ${refused.message}`, 'send {"address": "chain:<10 hex>.app"}');
    return analysisAnswer(AI_ROUTES.reaudit.path, await analyze({ address: (req.body as { address: string }).address }));
  });

  budgeted(AI_ROUTES.generate, async (req) => {
    // Losslessly: a total_supply beyond 2^53 is a JSON integer the checks must see exactly.
    let body: unknown = req.body;
    if (req.bodyText !== undefined && req.bodyText.length > 0) {
      try {
        body = parseJsonLossless(req.bodyText);
      } catch {
        throw badRequest('the body is not JSON');
      }
    }
    return ai.generator.generate(body);
  });

  routes.serve(AI_ROUTES.attest, async (req) => {
    const a = await s.client.request(s.router.nodesOfShard(0), 'POST', AI_ROUTES.attest.path, req.raw.body, req.raw.bodyText);
    s.metrics.proxied.inc({ route: AI_ROUTES.attest.path, status: String(a.status) });
    if (isAnalyzerMissing(a)) throw unavailable('contract attestation is not enabled on this network', 'no node of this network serves POST /api/v1/contracts/attest');
    return passThrough(a);
  }, { tag: 'analyzer' }); // the analyzer plugin's route on a node (decisions.md §87 tags)

  routes.serve(AI_ROUTES.assistantHealth, () => ({ enabled: s.config.assistantEnabled, model: ASSISTANT_MODEL, documents: ai.docs?.documents ?? 0 }));

  budgeted(AI_ROUTES.assistantAsk, (req) => {
    if (!s.config.assistantEnabled) throw forbidden('the documentation assistant is off on this gateway (ASSISTANT_ENABLED is not 1)');
    const refused = firstRefusal(AskBody, req.body ?? {});
    if (refused) throw badRequest(`question must be text of 1 to 2000 characters (${refused.name}: ${refused.message})`, 'send {"question": "…"}');
    if (ai.docs === undefined) throw unavailable('the documentation index is not built on this gateway', 'run npm run build');
    return ai.docs.ask((req.body as { question: string }).question);
  });

}

