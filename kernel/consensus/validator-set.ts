import { parseHex } from '../codec/hex.js';
import { compareAddresses } from './bytes.js';
import { selectProposerIndex } from './proposer.js';
import type { Validator } from './types.js';

const SEPARATOR = '|';

/** Addresses and chain ids go into `|`-joined sign bytes, so they must not contain the separator. */
export function isEncodableField(text: string): boolean {
  return text.length > 0 && !text.includes(SEPARATOR);
}

/**
 * An immutable validator set in canonical order (address ascending, byte-wise). All thresholds
 * are integer comparisons on bigint power: "more than 2/3" is 3·p > 2·T, "more than 1/3"
 * (the paper's f+1) is 3·p > T.
 */
export class ValidatorSet {
  readonly validators: readonly Validator[];
  /** Sum of voting power (see `votingPower` for the all-zero case). */
  readonly totalPower: bigint;
  /** Each validator with its key decoded once: every vote and proposal is verified against it. */
  private readonly index = new Map<string, { readonly validator: Validator; readonly publicKey: Uint8Array; readonly position: number }>();
  private readonly equalWeights: boolean;
  private readonly proposerCache = new Map<string, Validator>();

  constructor(validators: Iterable<Validator>) {
    const sorted = [...validators].sort((a, b) => compareAddresses(a.address, b.address));
    if (sorted.length === 0) throw new Error('validator set must not be empty');
    let stake = 0n;
    sorted.forEach((v, position) => {
      if (!isEncodableField(v.address)) throw new Error(`validator address must be non-empty and free of '|': ${JSON.stringify(v.address)}`);
      if (this.index.has(v.address)) throw new Error(`duplicate validator ${v.address}`);
      if (v.power < 0n) throw new RangeError(`negative power for ${v.address}`);
      const publicKey = typeof v.public_key === 'string' ? parseHex(v.public_key) : null;
      if (publicKey === null || publicKey.length === 0) throw new Error(`public key of ${v.address} is not hex`);
      this.index.set(v.address, { validator: v, publicKey, position });
      stake += v.power;
    });
    this.validators = Object.freeze(sorted);
    // With no stake at all no quorum could ever form; proposer selection falls back to
    // round-robin in that case (spec item 3), and voting falls back to one vote per validator to
    // match, so a zero-stake test network still finalises blocks.
    this.equalWeights = stake === 0n;
    this.totalPower = this.equalWeights ? BigInt(sorted.length) : stake;
  }

  get size(): number {
    return this.validators.length;
  }

  get(address: string): Validator | undefined {
    return this.index.get(address)?.validator;
  }

  /** The validator's consensus key as bytes, decoded when the set was built. */
  publicKeyOf(address: string): Uint8Array | undefined {
    return this.index.get(address)?.publicKey;
  }

  has(address: string): boolean {
    return this.index.has(address);
  }

  /** Power counted toward thresholds; 0 for an unknown address. */
  votingPower(address: string): bigint {
    const entry = this.index.get(address);
    if (entry === undefined) return 0n;
    return this.equalWeights ? 1n : entry.validator.power;
  }

  /** Strictly more than 2/3 of the total power (the paper's 2f+1). */
  hasTwoThirds(power: bigint): boolean {
    return 3n * power > 2n * this.totalPower;
  }

  /** Strictly more than 1/3 of the total power (the paper's f+1): at least one honest sender. */
  hasOneThird(power: bigint): boolean {
    return 3n * power > this.totalPower;
  }

  /** Smallest power that is more than 2/3 of the total. */
  quorumPower(): bigint {
    return (2n * this.totalPower) / 3n + 1n;
  }

  proposer(height: number, round: number): Validator {
    const key = `${height}/${round}`;
    let v = this.proposerCache.get(key);
    if (v === undefined) {
      v = this.validators[selectProposerIndex(this.validators, height, round)] as Validator;
      // The cache only saves repeated SHA3 per message; bounded because rounds per height are few.
      if (this.proposerCache.size > 1024) this.proposerCache.clear();
      this.proposerCache.set(key, v);
    }
    return v;
  }
}
