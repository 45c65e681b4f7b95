import { forbidden, type ChainError, type ReadContext } from '../../kernel/sdk.js';
import type { ContractSecurity, DeployCandidate } from '../contracts/public.js';
import { analyze } from './analysis.js';
import { PARAMS } from './params.js';
import { analyzerMethods } from './methods.js';

/**
 * The deploy gate (part 1, Contract execution 9; decisions.md §47), run by the contracts plugin at
 * admission and again in the block: trusted bytes pass with score 100; otherwise, with
 * `deploy_security_enabled` 1, a `risk_score` at or above `deploy_risk_threshold` is refused with
 * 403. What passes carries its scores into the contract record. `ctx` is the contracts plugin's:
 * the trusted list is read through the analyzer's method.
 */
export async function gateCheck(ctx: ReadContext, candidate: DeployCandidate): Promise<ContractSecurity | ChainError | undefined> {
  // Before the analyzer's activation height no gate runs (its plugin is not yet part of consensus).
  if (!(await ctx.methods.active(analyzerMethods))) return undefined;
  const a = analyze(candidate.bytecode, candidate.codeHash);
  if (await ctx.methods.of(analyzerMethods).trusted(candidate.codeHash)) return { security_score: 100, risk_score: a.risk_score, model: a.model, score_source: 'whitelist' };
  const [enabled, threshold] = await Promise.all([ctx.params.get(PARAMS.enabled), ctx.params.get(PARAMS.threshold)]);
  if (enabled === 1n && BigInt(a.risk_score) >= threshold) {
    const fired = a.violations.map((v) => v.rule).join(', ');
    return forbidden(`deploy refused by the contract analyzer: risk_score ${a.risk_score} (${a.model}: ${fired}) is at or above deploy_risk_threshold ${threshold} (deploy_security_enabled is 1)`);
  }
  return { security_score: 100 - a.risk_score, risk_score: a.risk_score, model: a.model, score_source: 'analyzer' };
}
