/**
 * What the load bench is asked to run, parsed and checked before the first devnet starts: a bad
 * flag should fail in a second, not after a minute of pre-signing.
 */

/** A fixed offered rate in tx/s, or flat out: the next transfer leaves as soon as one is answered. */
export type Rate = number | 'max';

export const FLAT_OUT = 'max';

/** A count or rate as written on the command line: no sign, no leading zero, no fraction. */
const POSITIVE_INTEGER = /^[1-9][0-9]*$/;

/** Where transfers are submitted: round-robin straight to the validators, or all through a gateway. */
export type Via = 'nodes' | 'gateway';
export const VIAS: readonly Via[] = ['nodes', 'gateway'];

export interface RunPlan<Choice extends string> {
  readonly choice: Choice;
  readonly rates: readonly Rate[];
}

export interface Phase {
  readonly rate: Rate;
  readonly seconds: number;
  /** Sent before the timed rates and not counted. */
  readonly warm: boolean;
}

/**
 * "20,40,max": positive integers, and `max` (flat out) only last. Flat out leaves gaps in the
 * accounts' nonces where its window stops, so nothing can be planned after it.
 */
export function parseRates(text: string, what: string): Rate[] {
  const parts = text.split(',');
  const out = parts.map((p): Rate | null => (p === FLAT_OUT ? FLAT_OUT : POSITIVE_INTEGER.test(p) ? Number(p) : null));
  if (out.some((r) => r === null)) throw new Error(`${what}: rates must be positive integers or "${FLAT_OUT}" (flat out) separated by commas, got "${text}"`);
  const flat = out.indexOf(FLAT_OUT);
  if (flat >= 0 && flat !== out.length - 1) throw new Error(`${what}: "${FLAT_OUT}" (flat out) can only be the last rate, got "${text}"`);
  return out as Rate[];
}

/** `provider=r1,r2,...` from --run. */
export function parseRun<Choice extends string>(text: string, choices: readonly Choice[]): RunPlan<Choice> {
  const parts = text.split('=');
  const choice = parts[0] as Choice;
  if (parts.length !== 2 || !choices.includes(choice)) throw new Error(`--run ${text}: expected <${choices.join('|')}>=<rates>, e.g. noble=40,80,${FLAT_OUT}`);
  return { choice, rates: parseRates(parts[1]!, `--run ${text}`) };
}

/**
 * The devnets to run: one per `--run`, or without it one with CHAIN_CRYPTO_PROVIDER's choice
 * (`auto` if unset) at `--rates` (else `defaultRates`).
 */
export function planRuns<Choice extends string>(opts: { run?: readonly string[]; rates?: string; envChoice?: string; defaultRates: string; choices: readonly Choice[] }): Array<RunPlan<Choice>> {
  if (opts.run?.length) {
    if (opts.rates !== undefined) throw new Error('--rates and --run both given: with --run, each provider names its own rates (noble=40,80,100)');
    const planned = opts.run.map((r) => parseRun(r, opts.choices));
    const twice = planned.find((r, i) => planned.findIndex((o) => o.choice === r.choice) !== i);
    if (twice) throw new Error(`--run ${twice.choice} given twice: one devnet per provider`);
    return planned;
  }
  const env = opts.envChoice ?? 'auto';
  if (!opts.choices.includes(env as Choice)) throw new Error(`CHAIN_CRYPTO_PROVIDER=${env}: expected one of ${opts.choices.join(', ')}`);
  return [{ choice: env as Choice, rates: parseRates(opts.rates ?? opts.defaultRates, '--rates') }];
}

export function parseVia(text: string): Via {
  if (!(VIAS as readonly string[]).includes(text)) throw new Error(`--via ${text}: expected ${VIAS.join(' or ')}`);
  return text as Via;
}

export function parsePositiveInt(text: string, what: string): number {
  if (!POSITIVE_INTEGER.test(text)) throw new Error(`${what}: expected a positive integer, got "${text}"`);
  return Number(text);
}

/** A warm-up at the first rate (if `warmup` > 0), then each rate for `seconds`. */
export function phasesOf(rates: readonly Rate[], seconds: number, warmup: number): Phase[] {
  return [...(warmup > 0 ? [{ rate: rates[0]!, seconds: warmup, warm: true }] : []), ...rates.map((rate) => ({ rate, seconds, warm: false }))];
}

/**
 * Transfers to pre-sign for a phase. A fixed rate sends exactly rate × seconds. Flat out sends
 * until its seconds are up, so it needs as many as the devnet could possibly commit: C (every
 * validator verifying every transfer once on all cores) per second; `cap` bounds the client's
 * memory and pre-signing time where C is far above what the devnet commits (a native provider).
 */
export function transfersFor(phase: Phase, C: number, cap: number): number {
  return phase.rate === FLAT_OUT ? Math.max(1, Math.min(cap, Math.ceil(phase.seconds * C))) : phase.rate * phase.seconds;
}

/**
 * Which pre-signed pool each phase sends from, and each pool's size. A fixed-rate phase sends its
 * whole pool. Flat out stops wherever its seconds run out, so a flat-out warm-up (the run's only
 * rate is `max`) and the timed phase after it share one pool: the timed phase goes on where the
 * warm-up stopped, and no account is left with a gap in its nonces.
 */
export function poolsFor(phases: readonly Phase[], C: number, cap: number): { sizes: number[]; poolOf: number[] } {
  const sizes: number[] = [];
  const poolOf: number[] = [];
  phases.forEach((p, i) => {
    const prev = phases[i - 1];
    if (p.rate === FLAT_OUT && prev?.rate === FLAT_OUT) {
      const pool = poolOf[i - 1]!;
      sizes[pool] = transfersFor({ ...p, seconds: p.seconds + prev.seconds }, C, cap);
      poolOf.push(pool);
    } else {
      poolOf.push(sizes.length);
      sizes.push(transfersFor(p, C, cap));
    }
  });
  return { sizes, poolOf };
}

/**
 * Flat out's lanes: pool indices per lane, each account's transfers in one lane only and in pool
 * order. A pool interleaves accounts (transfer k is account k mod `accounts`'s next nonce), and a
 * node takes an account's nonces only in order, so two lanes must never hold the same account:
 * a lane sends one transfer at a time, and whatever it has sent of an account is a prefix of
 * that account's nonces when the phase stops. At most `accounts` lanes.
 */
export function flatOutLanes(poolSize: number, accounts: number, inflight: number): number[][] {
  const lanes = Array.from({ length: Math.min(inflight, accounts) }, (): number[] => []);
  for (let k = 0; k < poolSize; k++) lanes[(k % accounts) % lanes.length]!.push(k);
  return lanes;
}

export function rateLabel(rate: Rate): string {
  return rate === FLAT_OUT ? 'flat out' : `${rate} tx/s`;
}

/**
 * `--token-mix F`: the share of each pool sent as fungible-token `transfer` calls instead of plain
 * transfers, written as a decimal from 0 to 1 with at most three places ("0.5", "1", "0.125"),
 * kept in thousandths so the plan is exact.
 */
export function parseTokenMix(text: string): number {
  const m = /^(0|1)(?:\.([0-9]{1,3}))?$/.exec(text);
  const permille = m ? Number(m[1]) * 1000 + Number((m[2] ?? '').padEnd(3, '0')) : NaN;
  if (!(permille >= 0 && permille <= 1000)) throw new Error(`--token-mix ${text}: expected a share from 0 to 1 with at most three decimals, e.g. 0.5`);
  return permille;
}

/**
 * Whether transfer k of a pool is a token transfer, at `permille` thousandths: spread evenly
 * (k is one when the running count ⌊(k + 1)·p/1000⌋ steps up), so every stretch of a pool, and
 * hence every second of a phase, carries the mix, and the first 1000 of a pool carry exactly p.
 */
export function isTokenTransfer(k: number, permille: number): boolean {
  return Math.floor(((k + 1) * permille) / 1000) > Math.floor((k * permille) / 1000);
}

/** Token transfers go from each load account to the next one round the ring, so every holder both sends and receives. */
export function tokenRecipient(i: number, accounts: number): number {
  return (i + 1) % accounts;
}
