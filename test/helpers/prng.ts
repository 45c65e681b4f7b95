/** mulberry32: the seeded PRNG randomised tests use, so a run replays exactly from its printed seed. */
export { mulberry32 } from '../../kernel/p2p/tcp/limits.js';

export function testSeed(name: string): number {
  const fromEnv = process.env.TEST_SEED;
  return fromEnv !== undefined ? Number(fromEnv) : [...name].reduce((h, c) => (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0, 7);
}

/** `length` deterministic bytes from `seed` (a log entry, a proposal's texts): a copy that drops or shifts any shows. */
export function patternedBytes(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed;
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}
