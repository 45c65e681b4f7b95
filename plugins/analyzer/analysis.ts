import { LRUCache } from 'lru-cache';
import { sha3Hex0x } from '../../kernel/sdk.js';
import { HOST_FUNCTIONS, HOST_MODULE } from '../contracts/public.js';
import { analyzeStaticV1, type StaticAnalysis } from './static-v1.js';

/**
 * Analyses by code hash. static-v1 is a pure function of the bytes, so a cached answer is the
 * answer every validator computes; the cache only saves the second parse of the same code (its
 * admission, then its block; the token template deployed again and again).
 */
const cache = new LRUCache<string, StaticAnalysis>({ max: 512 });

/** static-v1 of `bytes` (throws UnreadableModule for bytes wasmparser cannot read). */
export function analyze(bytes: Uint8Array, codeHash: string = sha3Hex0x(bytes)): StaticAnalysis {
  const hit = cache.get(codeHash);
  if (hit) return hit;
  const a = analyzeStaticV1(bytes, HOST_FUNCTIONS, HOST_MODULE);
  cache.set(codeHash, a);
  return a;
}

/** decisions.md §28: `ml_score` = `risk_score / 100` (answers only, never in consensus). */
export const mlScore = (riskScore: number): number => riskScore / 100;
