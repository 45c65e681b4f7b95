/** mulberry32: the seeded PRNG randomised tests use, so a run replays exactly from its printed seed. */
export { mulberry32 } from '../../kernel/p2p/tcp/limits.js';

export function testSeed(name: string): number {
  const fromEnv = process.env.TEST_SEED;
  return fromEnv !== undefined ? Number(fromEnv) : [...name].reduce((h, c) => (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0, 7);
}
