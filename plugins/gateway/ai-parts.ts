import type { Logger } from 'pino';
import { ANALYZE_PATH } from './ai-routes.js';
import { isObject } from './node-client.js';
import { ASSISTANT_MODEL, DocsSearch } from './assistant/docs-search.js';
import { CONTRACT_ALERT_MODEL, ContractAlerts } from './contract-alerts.js';
import { ContractGenerator } from './generator/contract-generator.js';
import { loadTemplateSources } from './generator/template-sources.js';
import type { GatewayServices } from './services.js';

/** The gateway's AI side (decisions.md §52–53), built once per gateway plugin. */
export interface AiParts {
  readonly generator: ContractGenerator;
  /** Undefined when the build wrote no documentation index. */
  readonly docs: DocsSearch | undefined;
  readonly alerts: ContractAlerts;
  /** decisions.md §52's figures of GET /api/v1/ai/status. */
  figures(): Promise<Record<string, unknown>>;
}

export function createAiParts(s: GatewayServices, log: Logger): AiParts {
  const generator = new ContractGenerator({
    read: (path) => s.reads.get(path),
    analyze: (bytecodeHex) => s.client.request(s.router.nodesOfShard(0), 'POST', ANALYZE_PATH, { bytecode_hex: bytecodeHex }),
    sources: loadTemplateSources(),
    provider: s.config.aiProvider,
  });
  const docs = DocsSearch.load();
  if (!docs) log.warn('the documentation index is not built (npm run build): /api/v1/assistant/ask answers 503');
  const alerts = new ContractAlerts(s.config.contractAlerts, s.reads, s.events, log.child({ part: 'contract-alerts' }));
  const analyzer = new AnalyzerModel(s);
  return {
    generator,
    docs,
    alerts,
    async figures() {
      const a = s.config.contractAlerts;
      return {
        analyzer: { model: await analyzer.current() },
        generator: { mode: generator.mode, kinds: generator.kinds },
        assistant: { enabled: s.config.assistantEnabled, model: ASSISTANT_MODEL },
        contract_alerts: { check_interval_ms: a.checkIntervalMs, spike_low_threshold: a.spikeLowThreshold, spike_high_threshold: a.spikeHighThreshold, low_score_threshold: a.lowScoreThreshold, cooldown_ms: a.cooldownMs, model: CONTRACT_ALERT_MODEL },
        rate_limit: { ai_rl_max_rpm: s.config.aiRlMaxRpm },
      };
    },
  };
}

/** The smallest WebAssembly module (magic and version): what ai/status asks the node's analyzer to name itself with. */
const EMPTY_MODULE_HEX = '0061736d01000000';

/**
 * The node analyzer's model (ai/status), asked again once PROTOCOL_PARAMS_REFRESH_MS has passed
 * (a network that upgrades its analyzer names a new model, decisions.md §46); null while no node
 * analyses.
 */
class AnalyzerModel {
  private model: string | null = null;
  private askedAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly s: GatewayServices) {}

  async current(): Promise<string | null> {
    if (this.model !== null && Date.now() - this.askedAt < this.s.config.paramsRefreshMs) return this.model;
    try {
      const a = await this.s.client.request(this.s.router.nodesOfShard(0), 'POST', ANALYZE_PATH, { bytecode_hex: EMPTY_MODULE_HEX });
      this.model = a.status === 200 && isObject(a.body) && typeof a.body.model === 'string' ? a.body.model : null;
      this.askedAt = Date.now();
    } catch {
      // No node answers: the last model known stands, asked again at the next status read.
    }
    return this.model;
  }
}
