import type { CheckFailure } from './check-failure.js';

/** Where the coins are at one height: every holding the supply counts, in ucoin. */
export type Holdings = Readonly<Record<string, bigint>>;

/**
 * Supply conservation to the ucoin: what is held over every kind of holding (balances, stakes,
 * delegations, escrows, vault and pool holdings) equals the genesis supply plus what was minted
 * minus what was burned up to that height.
 */
export function checkSupply(at: { readonly height: number; readonly genesis: bigint; readonly minted: bigint; readonly burned: bigint; readonly held: Holdings }): CheckFailure[] {
  const held = Object.values(at.held).reduce((a, b) => a + b, 0n);
  const want = at.genesis + at.minted - at.burned;
  if (held === want) return [];
  return [
    {
      check: 'supply = genesis + minted − burned',
      message: `at height ${at.height} the holdings sum to ${held}, expected ${want} (${held > want ? 'created' : 'lost'} ${held > want ? held - want : want - held} ucoin)`,
      window: [`genesis ${at.genesis} minted ${at.minted} burned ${at.burned}`, ...Object.entries(at.held).map(([k, v]) => `${k} ${v}`)],
    },
  ];
}
