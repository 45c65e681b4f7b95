import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConfigError, canonicalJson, sha3Hex0x } from '../../kernel/sdk.js';

/**
 * The sentinel's scorer: logistic regression over seven features of a transfer, evaluated in
 * integer fixed point (bigint only, no floating point), so every validator computes the same
 * score from the same committed state. Features, weights, bias and score are on the scale
 * `SCALE` (10 000 = 1.0); the sigmoid is computed with an integer Taylor series of e^-x.
 */
export const SCALE = 10_000n;

/** Part 1's score request (Sentinel score request and response). */
export interface ScoreRequest {
  readonly value: bigint;
  readonly gas_price: bigint;
  readonly nonce: bigint;
  readonly last_nonce: bigint;
  readonly balance: bigint;
  readonly tx_count_last_10: bigint;
  readonly recipient_tx_count: bigint;
  readonly is_self_transfer: boolean;
}

/** The features, in the order of the weights file; each maps to the category it names when it dominates. */
export const FEATURES = ['drain', 'fresh_recipient', 'burst', 'nonce_gap', 'fee_spike', 'self_transfer', 'new_account'] as const;
export type Feature = (typeof FEATURES)[number];

/** `category` of a verdict: `normal`, or the feature that contributed most to an anomalous score. */
export const CATEGORIES: Readonly<Record<Feature, string>> = {
  drain: 'drain',
  fresh_recipient: 'new_recipient',
  burst: 'burst',
  nonce_gap: 'nonce_gap',
  fee_spike: 'fee_spike',
  self_transfer: 'self_transfer',
  new_account: 'new_account',
};
export const NORMAL = 'normal';

/** The weights file (versioned JSON, written by train.ts). */
export interface ModelFile {
  readonly format: 'pq-chain-sentinel-model';
  readonly name: string;
  readonly version: string;
  readonly architecture: string;
  readonly scale: number;
  readonly features: readonly string[];
  readonly bias: number;
  readonly weights: readonly number[];
  /** Score (on `scale`) from which a transaction is anomalous. */
  readonly anomaly_threshold: number;
  readonly training: Readonly<Record<string, unknown>>;
}

export interface Model {
  readonly name: string;
  readonly version: string;
  readonly architecture: string;
  readonly paramsCount: number;
  readonly bias: bigint;
  readonly weights: readonly bigint[];
  readonly anomalyThreshold: bigint;
  /** SHA3-256 of the file's bytes: the `weights_hash` registered on chain. */
  readonly weightsHash: string;
  readonly accuracyBp: number;
}

export interface Verdict {
  /** 0..SCALE. */
  readonly scoreBp: bigint;
  readonly anomalous: boolean;
  readonly category: string;
}

const clamp = (x: bigint, lo: bigint, hi: bigint): bigint => (x < lo ? lo : x > hi ? hi : x);

/** Feature values on SCALE, in FEATURES order. */
export function featuresOf(r: ScoreRequest): bigint[] {
  const balance = r.balance < 0n ? 0n : r.balance;
  const value = r.value < 0n ? 0n : r.value;
  const drain = balance === 0n ? (value === 0n ? 0n : SCALE) : (clamp(value, 0n, balance) * SCALE) / balance;
  const fresh = SCALE / (1n + (r.recipient_tx_count < 0n ? 0n : r.recipient_tx_count));
  const burst = (clamp(r.tx_count_last_10, 0n, 10n) * SCALE) / 10n;
  const gap = r.nonce > r.last_nonce + 1n ? (clamp(r.nonce - r.last_nonce - 1n, 0n, 10n) * SCALE) / 10n : 0n;
  const fee = ((clamp(r.gas_price, 1n, 101n) - 1n) * SCALE) / 100n;
  const self = r.is_self_transfer ? SCALE : 0n;
  const first = r.last_nonce <= 0n ? SCALE : 0n;
  return [drain, fresh, burst, gap, fee, self, first];
}

// e^-x on P = 10^12: e^-1 to 12 places, and a Taylor series for the fractional part.
const P = 1_000_000_000_000n;
const E_MINUS_1 = 367_879_441_171n;

/** e^(-frac/SCALE) on P by its Taylor series, 0 ≤ frac < SCALE. */
function expNegFraction(frac: bigint): bigint {
  let term = P;
  let sum = P;
  for (let k = 1n; k <= 20n; k++) {
    term = (term * frac) / (SCALE * k);
    sum += k % 2n === 1n ? -term : term;
    if (term === 0n) break;
  }
  return sum;
}

/**
 * The series' value for each of the SCALE fractions, filled as they are first asked: every
 * transfer is scored (twice: at admission and in its block), and the series was most of a
 * score's cost. The same integers as computing it each time, so scores are unchanged.
 */
const FRACTION_SERIES: Array<bigint | undefined> = new Array<bigint | undefined>(Number(SCALE));

/** e^(-x/SCALE) on P, x ≥ 0. */
function expNeg(x: bigint): bigint {
  const whole = x / SCALE;
  if (whole > 40n) return 0n;
  const frac = x % SCALE; // r = frac / SCALE in [0, 1)
  const at = Number(frac);
  const sum = FRACTION_SERIES[at] ?? (FRACTION_SERIES[at] = expNegFraction(frac));
  let result = sum;
  for (let i = 0n; i < whole; i++) result = (result * E_MINUS_1) / P;
  return result;
}

/** The logistic function of z (on SCALE), on SCALE, rounded down. */
export function sigmoid(z: bigint): bigint {
  if (z >= 0n) return (SCALE * P) / (P + expNeg(z));
  const e = expNeg(-z);
  return (SCALE * e) / (P + e);
}

/** The verdict on one request: deterministic, integers only. */
export function score(model: Pick<Model, 'bias' | 'weights' | 'anomalyThreshold'>, r: ScoreRequest): Verdict {
  const f = featuresOf(r);
  let z = model.bias;
  let top = -1;
  let topContribution = 0n;
  for (let i = 0; i < f.length; i++) {
    const c = (model.weights[i]! * f[i]!) / SCALE;
    z += c;
    if (c > topContribution) {
      topContribution = c;
      top = i;
    }
  }
  const scoreBp = sigmoid(z);
  const anomalous = scoreBp >= model.anomalyThreshold;
  return { scoreBp, anomalous, category: anomalous && top >= 0 ? CATEGORIES[FEATURES[top]!] : NORMAL };
}

/** A score on the wire: a fraction with four decimals (part 1, Transaction scoring 1). */
export function fraction(scoreBp: bigint): number {
  return Number(scoreBp) / Number(SCALE);
}


/** Parses and checks a weights file; `text` is hashed as it is. */
export function parseModel(text: string): Model {
  let m: ModelFile;
  try {
    m = JSON.parse(text) as ModelFile;
  } catch (err) {
    throw new ConfigError(`sentinel weights file is not JSON: ${(err as Error).message}`);
  }
  const ints = (xs: readonly unknown[]): boolean => xs.every((x) => Number.isSafeInteger(x));
  if (m.format !== 'pq-chain-sentinel-model') throw new ConfigError('sentinel weights file: format is not pq-chain-sentinel-model');
  if (m.scale !== Number(SCALE)) throw new ConfigError(`sentinel weights file: scale ${m.scale}, this build scores on ${SCALE}`);
  if (canonicalJson(m.features) !== canonicalJson(FEATURES)) throw new ConfigError(`sentinel weights file: features ${String(m.features)} are not this build's ${FEATURES.join(',')}`);
  if (!Array.isArray(m.weights) || m.weights.length !== FEATURES.length || !ints(m.weights) || !ints([m.bias, m.anomaly_threshold])) {
    throw new ConfigError('sentinel weights file: bias, weights and anomaly_threshold must be integers, one weight per feature');
  }
  return {
    name: m.name,
    version: m.version,
    architecture: m.architecture,
    paramsCount: m.weights.length + 1,
    bias: BigInt(m.bias),
    weights: m.weights.map((w) => BigInt(w)),
    anomalyThreshold: BigInt(m.anomaly_threshold),
    weightsHash: sha3Hex0x(new TextEncoder().encode(text)),
    accuracyBp: Number(m.training.accuracy_bp ?? 0),
  };
}

/** The shipped weights file: plugins/sentinel/model/sentinel-v1.json of the source tree (dist/ has no copy). */
export const SHIPPED_MODEL_FILE = fileURLToPath(new URL('../../../plugins/sentinel/model/sentinel-v1.json', import.meta.url));

export function loadModel(path: string = SHIPPED_MODEL_FILE): Model {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`sentinel weights file ${path} cannot be read: ${(err as Error).message}`);
  }
  return parseModel(text);
}

/**
 * The least `value` (0..request's balance) whose score reaches `bp`, the other fields as given,
 * or the balance when none does: how much a wallet may send before a threshold (clients; tests).
 * The score rises with the value, so a bisection finds it.
 */
export function leastValueScoring(model: Pick<Model, 'bias' | 'weights' | 'anomalyThreshold'>, bp: bigint, r: Omit<ScoreRequest, 'value'>): bigint {
  let lo = 0n;
  let hi = r.balance;
  while (lo < hi) {
    const mid = (lo + hi) / 2n;
    if (score(model, { ...r, value: mid }).scoreBp >= bp) hi = mid;
    else lo = mid + 1n;
  }
  return lo;
}
