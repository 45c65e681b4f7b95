import type { BlockRecord } from '../model/types.js';
import { ValidatorHistory } from '../state/validator-history.js';
import { bytesEqual } from '../consensus/bytes.js';
import { verifyCommit } from '../consensus/commit.js';
import type { VerifyResult } from '../consensus/types.js';
import { ValidatorSet } from '../consensus/validator-set.js';
import { certificateFromJson } from '../consensus/wire.js';
import { parseHex, toHex0x } from '../codec/hex.js';
import type { GenesisDoc } from '../config/genesis.js';
import type { SignatureProvider } from '../crypto/provider.js';
import { applyScanOptions, type StateSource } from '../state/overlay.js';
import { checkSnapshot, decodeStoredBlock, type StateSnapshot } from './snapshot.js';

/** What trust is judged on besides the state: the head of a snapshot, signature aside. */
export type SnapshotTrustFields = Pick<StateSnapshot, 'chain_id' | 'height' | 'state_root' | 'signer' | 'public_key' | 'certifying_block' | 'certifying_commit'>;

/** The validators a node trusts before it has any state: the genesis set, power = stake. */
export function genesisTrust(genesis: GenesisDoc): ValidatorSet {
  return new ValidatorSet(genesis.validators.map((v) => ({ address: v.address, public_key: v.public_key, power: BigInt(v.stake) })));
}

/**
 * Whether a snapshot's state is the chain's, checked as a light client checks a header (CometBFT's
 * skipping verification), so that no single key, however trusted, can hand a node a fabricated
 * state:
 *
 * - block h + 1 links to the snapshot's block and names its state root as `prev_state_root`;
 * - its commit certificate holds more than 2/3 of the power of the validator set that the
 *   snapshot's own state says signs height h + 1;
 * - signers holding more than 1/3 of the trusted set's power are among them with the keys the
 *   node trusts, so at least one correct trusted validator vouches for the block, as long as
 *   fewer than a third of the trusted set is faulty. A set that has turned over more than that
 *   since the trust anchor is refused rather than guessed at.
 *
 * A block of a one-validator network stored by a build whose producer signed no certificate has
 * none; a snapshot it certifies is accepted on that validator's own signature only when it alone
 * holds more than 2/3 of the trusted power, which is what a certificate would have proved.
 *
 * `state` is the snapshot's state (a receiver's: its entries; the serving node's: its own view),
 * read only for the validator set that signs h + 1.
 */
export async function verifySnapshotTrust(s: SnapshotTrustFields, block: BlockRecord, trusted: ValidatorSet, provider: SignatureProvider, state: StateSource): Promise<VerifyResult> {
  const next = s.height + 1;
  if (s.certifying_commit === undefined) {
    const signerKey = trusted.publicKeyOf(s.signer);
    const key = parseHex(s.public_key);
    if (signerKey !== undefined && key !== null && bytesEqual(signerKey, key) && trusted.hasTwoThirds(trusted.votingPower(s.signer))) return { ok: true };
    return { ok: false, reason: `snapshot carries no commit certificate for block ${next}, and its signer does not hold more than 2/3 of the trusted validators' power` };
  }
  if (typeof s.certifying_block !== 'string') return { ok: false, reason: `snapshot carries a certificate but no block ${next}` };
  const decoded = decodeStoredBlock(s.certifying_block);
  if (decoded === null) return { ok: false, reason: `snapshot's block ${next} is malformed` };
  const { block: certified, hash } = decoded;
  const h = certified.header;
  if (hash !== certified.hash) return { ok: false, reason: `snapshot's block ${next} does not match its hash` };
  if (h.chain_id !== s.chain_id || h.height !== next) return { ok: false, reason: `snapshot's certifying block is not block ${next} of chain ${s.chain_id}` };
  if (h.parent_hash !== block.hash) return { ok: false, reason: `snapshot's block ${next} does not follow block ${s.height}` };
  if (h.prev_state_root !== s.state_root) return { ok: false, reason: `snapshot's block ${next} names state root ${h.prev_state_root}, not the snapshot's ${s.state_root}` };

  const cert = certificateFromJson(s.certifying_commit);
  if (cert === null) return { ok: false, reason: `snapshot's certificate of block ${next} is malformed` };
  if (cert.height !== next || toHex0x(cert.blockHash) !== certified.hash) return { ok: false, reason: `snapshot's certificate is not for block ${next}` };

  let signing: ValidatorSet;
  try {
    signing = await signingSet(state, next);
  } catch (e) {
    return { ok: false, reason: `snapshot's validator set is malformed: ${(e as Error).message}` };
  }
  const quorum = verifyCommit(cert, signing, s.chain_id, provider);
  if (!quorum.ok) return { ok: false, reason: `snapshot's certificate of block ${next} does not verify against the snapshot's validators: ${quorum.reason}` };

  // Every precommit verified above under the snapshot set's key; it counts toward the trusted
  // power only where that key is the one the node trusts for that address.
  let vouched = 0n;
  for (const p of cert.precommits) {
    const mine = trusted.publicKeyOf(p.vote.validator);
    if (mine !== undefined && bytesEqual(mine, signing.publicKeyOf(p.vote.validator)!)) vouched += trusted.votingPower(p.vote.validator);
  }
  if (!trusted.hasOneThird(vouched)) return { ok: false, reason: `the signers of block ${next} hold no more than 1/3 of the trusted validators' power` };
  return { ok: true };
}

/**
 * A snapshot as a stranger sent it, taken only if it is consistent in itself (`checkSnapshot`)
 * and its state is the chain's (`verifySnapshotTrust`): what a node starting from it checks.
 */
export async function acceptSnapshot(body: unknown, chainId: string, trusted: ValidatorSet, provider: SignatureProvider): Promise<{ ok: true; snapshot: StateSnapshot; block: BlockRecord } | { ok: false; reason: string }> {
  const checked = checkSnapshot(body, chainId, provider);
  if (!checked.ok) return checked;
  const trust = await verifySnapshotTrust(checked.snapshot, checked.block, trusted, provider, entriesSource(checked.snapshot.entries));
  return trust.ok ? checked : { ok: false, reason: trust.reason };
}

/**
 * The validator set the snapshot's state names for `height` (h + 1). The entries are a stranger's
 * bytes, so every record is checked for the types the kernel would have written before any
 * arithmetic touches it; anything else throws, and the caller refuses the snapshot.
 */
async function signingSet(state: StateSource, height: number): Promise<ValidatorSet> {
  const rows = (await ValidatorHistory.read(state)).setAt(height);
  if (rows.length === 0) throw new Error('it has no validators');
  for (const v of rows) if (typeof v.power !== 'bigint') throw new TypeError(`power of ${v.address} is not an integer`);
  // The set's constructor refuses a key that is not hex.
  return new ValidatorSet(rows);
}

/** The snapshot's entries as a read-only state, for the kernel's own readers. */
function entriesSource(entries: ReadonlyArray<readonly [string, string]>): StateSource {
  const decoded = (e: readonly [string, string]): [string, Uint8Array] => [e[0], parseHex(e[1]) ?? new Uint8Array()];
  return {
    get: async (key) => {
      const e = entries.find(([k]) => k === key);
      return e === undefined ? undefined : decoded(e)[1];
    },
    scan: async (prefix, options) => applyScanOptions(entries.filter(([k]) => k.startsWith(prefix)).map(decoded), options),
  };
}
