import { writeFileSync } from 'node:fs';
import { FEATURES, SCALE, featuresOf, score, type ModelFile, type ScoreRequest } from './model.js';

/**
 * Trains the sentinel's model and writes its weights file. Reproducible: the data are generated
 * from a seeded PRNG (xorshift32), training is full-batch gradient descent with a fixed number
 * of epochs, and the weights are rounded to the scorer's fixed point before they are written, so
 * the same seed gives the same bytes and the same `weights_hash`.
 *
 *   node dist/plugins/sentinel/train.js [out-file]    (default: plugins/sentinel/model/sentinel-v1.json)
 *
 * The data: transfers of ordinary accounts (part of the balance, known recipients, a steady pace,
 * base gas price) labelled 0, and five attack shapes labelled 1: a drain to a new recipient, a
 * burst of transfers to new recipients, nonce gaps (replayed or pre-signed batches), fee spikes
 * (outbidding a pending recovery), a fresh account emptying itself. 2% of labels are flipped.
 */
export const TRAINING = { seed: 20_261_125, samples: 6_000, epochs: 400, learning_rate: 2, label_noise_pct: 2, version: '1.0.0' } as const;

function xorshift32(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4_294_967_296;
  };
}

interface Sample {
  readonly req: ScoreRequest;
  readonly label: 0 | 1;
}

export function generateData(seed: number, n: number): Sample[] {
  const rnd = xorshift32(seed);
  const int = (lo: number, hi: number): bigint => BigInt(lo + Math.floor(rnd() * (hi - lo + 1)));
  const out: Sample[] = [];
  for (let i = 0; i < n; i++) {
    const balance = int(1_000, 1_000_000_000);
    const lastNonce = rnd() < 0.1 ? 0n : int(1, 5_000);
    const base = { balance, last_nonce: lastNonce, nonce: lastNonce + 1n, gas_price: 1n, is_self_transfer: false };
    const part = (lo: number, hi: number): bigint => (balance * int(lo, hi)) / 1000n;
    let req: ScoreRequest;
    let label: 0 | 1 = 1;
    const kind = rnd();
    if (kind < 0.6) {
      label = 0;
      req = {
        ...base,
        value: part(0, rnd() < 0.8 ? 300 : 700),
        recipient_tx_count: rnd() < 0.15 ? 0n : int(1, 200),
        tx_count_last_10: int(0, 3),
        gas_price: rnd() < 0.9 ? 1n : int(1, 5),
        nonce: rnd() < 0.97 ? base.nonce : base.nonce + int(1, 2),
        is_self_transfer: rnd() < 0.03,
      };
    } else if (kind < 0.72) {
      req = { ...base, value: part(850, 1000), recipient_tx_count: rnd() < 0.7 ? 0n : int(1, 3), tx_count_last_10: int(0, 4) };
    } else if (kind < 0.8) {
      req = { ...base, value: part(50, 500), recipient_tx_count: int(0, 1), tx_count_last_10: int(6, 10) };
    } else if (kind < 0.87) {
      req = { ...base, value: part(100, 900), recipient_tx_count: int(0, 5), tx_count_last_10: int(0, 5), nonce: base.nonce + int(2, 10) };
    } else if (kind < 0.94) {
      req = { ...base, value: part(300, 1000), recipient_tx_count: int(0, 3), tx_count_last_10: int(0, 4), gas_price: int(20, 100) };
    } else {
      req = { ...base, last_nonce: 0n, nonce: 1n, value: part(700, 1000), recipient_tx_count: int(0, 2), tx_count_last_10: 0n };
    }
    if (rnd() * 100 < TRAINING.label_noise_pct) label = label === 1 ? 0 : 1;
    out.push({ req, label });
  }
  return out;
}

/** Trains and returns the weights file's text (what `weights_hash` is computed over). */
export function trainModel(): string {
  const data = generateData(TRAINING.seed, TRAINING.samples);
  const k = FEATURES.length;
  const xs = data.map((d) => featuresOf(d.req).map((f) => Number(f) / Number(SCALE)));
  const w = new Array<number>(k).fill(0);
  let b = 0;
  for (let epoch = 0; epoch < TRAINING.epochs; epoch++) {
    const gw = new Array<number>(k).fill(0);
    let gb = 0;
    for (let i = 0; i < data.length; i++) {
      const x = xs[i]!;
      let z = b;
      for (let j = 0; j < k; j++) z += w[j]! * x[j]!;
      const err = 1 / (1 + Math.exp(-z)) - data[i]!.label;
      for (let j = 0; j < k; j++) gw[j]! += err * x[j]!;
      gb += err;
    }
    for (let j = 0; j < k; j++) w[j]! -= (TRAINING.learning_rate * gw[j]!) / data.length;
    b -= (TRAINING.learning_rate * gb) / data.length;
  }
  const q = (v: number): number => Math.round(v * Number(SCALE));
  const model = { bias: BigInt(q(b)), weights: w.map((v) => BigInt(q(v))), anomalyThreshold: SCALE / 2n };
  // Accuracy of the fixed-point model on a held-out set from the next seed.
  const test = generateData(TRAINING.seed + 1, 2_000);
  const right = test.filter((s) => (score(model, s.req).anomalous ? 1 : 0) === s.label).length;
  const file: ModelFile = {
    format: 'pq-chain-sentinel-model',
    name: 'sentinel',
    version: TRAINING.version,
    architecture: 'logistic-regression-fixed-point',
    scale: Number(SCALE),
    features: FEATURES,
    bias: Number(model.bias),
    weights: model.weights.map(Number),
    anomaly_threshold: Number(model.anomalyThreshold),
    training: { script: 'plugins/sentinel/train.ts', seed: TRAINING.seed, samples: TRAINING.samples, epochs: TRAINING.epochs, learning_rate: TRAINING.learning_rate, label_noise_pct: TRAINING.label_noise_pct, test_samples: test.length, accuracy_bp: Math.floor((right * 10_000) / test.length) },
  };
  return JSON.stringify(file, null, 2) + '\n';
}

if (process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const out = process.argv[2] ?? 'plugins/sentinel/model/sentinel-v1.json';
  writeFileSync(out, trainModel());
  process.stdout.write(`wrote ${out}\n`);
}
