import type { TimeoutKind } from './types.js';

/**
 * Timeouts grow linearly with the round (Algorithm 1 needs them to grow without bound so that,
 * after GST, some round is long enough for every correct process to hear every other).
 */
export interface TimeoutConfig {
  readonly proposeBaseMs: number;
  readonly proposeDeltaMs: number;
  readonly prevoteBaseMs: number;
  readonly prevoteDeltaMs: number;
  readonly precommitBaseMs: number;
  readonly precommitDeltaMs: number;
}

export const DEFAULT_TIMEOUTS: TimeoutConfig = Object.freeze({
  proposeBaseMs: 1000,
  proposeDeltaMs: 500,
  prevoteBaseMs: 500,
  prevoteDeltaMs: 250,
  precommitBaseMs: 500,
  precommitDeltaMs: 250,
});

export function timeoutDuration(cfg: TimeoutConfig, kind: TimeoutKind, round: number): number {
  switch (kind) {
    case 'propose':
      return cfg.proposeBaseMs + cfg.proposeDeltaMs * round;
    case 'prevote':
      return cfg.prevoteBaseMs + cfg.prevoteDeltaMs * round;
    case 'precommit':
      return cfg.precommitBaseMs + cfg.precommitDeltaMs * round;
  }
}

export function resolveTimeouts(partial: Partial<TimeoutConfig> | undefined): TimeoutConfig {
  const cfg = { ...DEFAULT_TIMEOUTS, ...(partial ?? {}) };
  for (const [k, v] of Object.entries(cfg)) {
    if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`timeout ${k} must be a non-negative integer of ms, got ${String(v)}`);
  }
  return cfg;
}
