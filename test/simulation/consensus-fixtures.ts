import { canonicalJson } from '../../kernel/codec/json.js';
import { toHex } from '../../kernel/codec/hex.js';
import { sha3 } from '../../kernel/crypto/hash.js';
import type { KeyPair, SignatureProvider } from '../../kernel/crypto/provider.js';
import { signProposal, signVote } from '../../kernel/consensus/encoding.js';
import { TendermintMachine, type MachineConfig, type MachineEffect } from '../../kernel/consensus/machine.js';
import type { SignedProposal, SignedVote, VoteType } from '../../kernel/consensus/types.js';
import { ValidatorSet } from '../../kernel/consensus/validator-set.js';
import { Sha3MacTestProvider } from './sha3-mac-provider.js';

/** Shared fixtures for the consensus unit tests (test code only). */

export const CHAIN = 'test-chain-1';

export interface Fixture {
  readonly provider: SignatureProvider;
  readonly set: ValidatorSet;
  readonly addresses: readonly string[];
  readonly keys: ReadonlyMap<string, KeyPair>;
}

export function fixture(stakes: readonly bigint[], provider: SignatureProvider = Sha3MacTestProvider): Fixture {
  const keys = new Map<string, KeyPair>();
  const addresses: string[] = [];
  const validators = stakes.map((power, i) => {
    const address = `chain:val${i}.node`;
    const kp = provider.keygen(sha3(`fixture-key|${i}`));
    keys.set(address, kp);
    addresses.push(address);
    return { address, public_key: toHex(kp.publicKey), power };
  });
  return { provider, set: new ValidatorSet(validators), addresses, keys };
}

export interface TestBlock {
  readonly label: string;
}

export function hashTestBlock(block: unknown): Uint8Array {
  return sha3(canonicalJson(block));
}

export function block(label: string): { block: TestBlock; hash: Uint8Array } {
  const b = { label };
  return { block: b, hash: hashTestBlock(b) };
}

export function vote(f: Fixture, type: VoteType, height: number, round: number, hash: Uint8Array | null, validator: string): SignedVote {
  const kp = f.keys.get(validator);
  if (kp === undefined) throw new Error(`no key for ${validator}`);
  return signVote(f.provider, kp.secretKey, CHAIN, { type, height, round, blockHash: hash, validator });
}

export function proposal(f: Fixture, height: number, round: number, polRound: number, hash: Uint8Array): SignedProposal {
  const proposer = f.set.proposer(height, round).address;
  const kp = f.keys.get(proposer) as KeyPair;
  return signProposal(f.provider, kp.secretKey, CHAIN, { height, round, polRound, blockHash: hash, proposer });
}

export function machineFor(f: Fixture, self: string | null, extra: Partial<MachineConfig> = {}): TendermintMachine {
  return new TendermintMachine({ chainId: CHAIN, selfAddress: self, provider: f.provider, hashValue: hashTestBlock, ...extra });
}

/** First validator that is not the proposer of (height, round). */
export function nonProposer(f: Fixture, height: number, round: number): string {
  const p = f.set.proposer(height, round).address;
  return f.addresses.find((a) => a !== p) as string;
}

/** A round >= from whose proposer is `who`. */
export function roundProposedBy(f: Fixture, who: string, height: number, from: number): number {
  for (let r = from; r < from + 1000; r++) if (f.set.proposer(height, r).address === who) return r;
  throw new Error(`no round proposed by ${who}`);
}

export function ofType<T extends MachineEffect['type']>(effects: readonly MachineEffect[], type: T): Extract<MachineEffect, { type: T }>[] {
  return effects.filter((e): e is Extract<MachineEffect, { type: T }> => e.type === type);
}
