import type { ParamSpec } from '../../kernel/sdk.js';

/** Part 2, "AI security and transaction policy": the deploy gate's switch and threshold. */
export const PARAMS = {
  enabled: 'deploy_security_enabled',
  threshold: 'deploy_risk_threshold',
} as const;

export const ANALYZER_PARAMS: readonly ParamSpec[] = [
  { key: PARAMS.enabled, default: 1n, min: 0n, max: 1n, description: 'the analyzer\'s deploy gate: 1 refuses a deploy of bytes not trusted whose risk_score is at or above deploy_risk_threshold (403), 0 lets every deploy through (its scores are still recorded)' },
  { key: PARAMS.threshold, default: 80n, min: 0n, max: 100n, description: 'the risk_score (0–100) at or above which the gate refuses a deploy; also what `safe` of an analysis is judged against' },
];
