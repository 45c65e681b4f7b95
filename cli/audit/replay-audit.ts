import type { Chain, ProposedBlock } from '../../kernel/chain/chain.js';
import { blockHash } from '../../kernel/chain/block-hash.js';
import { certificateFromJson, ValidatorSet, verifyCommit } from '../../kernel/consensus/index.js';
import { toHex } from '../../kernel/codec/hex.js';
import type { SignatureProvider } from '../../kernel/crypto/provider.js';
import type { BlockRecord } from '../../kernel/model/types.js';
import type { StoredTx } from '../../kernel/store/chain-store.js';
import { heldCoins, mintedAndBurned, type SupplyDeclarer } from '../../kernel/state/supply.js';

/** The stored chain under audit: what a node's `ChainStore` answers. */
export interface AuditSource {
  readonly head: { readonly height: number };
  getBlock(height: number): Promise<BlockRecord | undefined>;
  getTx(hash: string): Promise<StoredTx | undefined>;
  getCommit(height: number): Promise<Uint8Array | undefined>;
}

export type AuditCheck = 'block' | 'certificate' | 'state_root' | 'supply';

/** The first place the stored chain and its replay disagree. */
export interface AuditDivergence {
  readonly height: number;
  readonly check: AuditCheck;
  readonly message: string;
}

export interface AuditResult {
  /** Heights replayed and found sound (all of them when there is no divergence). */
  readonly audited: number;
  readonly head: number;
  readonly divergence?: AuditDivergence;
}

const decoder = new TextDecoder();

/**
 * Replays a stored chain from genesis into `replay` (a fresh chain opened on the same genesis with
 * the same plugins: the node's own execution code) and checks, height by height:
 *   - the stored block is one the replayed chain accepts (`validate`, as a validator would);
 *   - its commit certificate holds precommits of more than 2/3 of the power of that height's
 *     validator set, as the replayed state gives it, for exactly this block;
 *   - executing it gives the state root the store recorded;
 *   - supply is conserved: what is held after it (every balance and every holding `plugins`
 *     declare, kernel/state/supply.ts) equals what was held before, plus what it minted (faucet
 *     credits, rewards), minus what it burned (fees, `ctx.burn`, slashes).
 * Stops at the first divergence.
 */
export async function auditChain(o: { source: AuditSource; replay: Chain; provider: SignatureProvider; plugins: Iterable<SupplyDeclarer>; onHeight?: (height: number) => void }): Promise<AuditResult> {
  const { source, replay } = o;
  const plugins = [...o.plugins];
  const head = source.head.height;
  if (replay.head.height !== 0) throw new Error(`the replay chain must start at genesis, not height ${replay.head.height}`);
  let held = (await heldCoins(replay.queries.state, plugins)).total;
  const diverged = (height: number, check: AuditCheck, message: string): AuditResult => ({ audited: height - 1, head, divergence: { height, check, message } });
  for (let h = 1; h <= head; h++) {
    const record = await source.getBlock(h);
    if (!record) return diverged(h, 'block', `the store holds no block ${h} below its head ${head}`);
    if (blockHash(record.header) !== record.hash) return diverged(h, 'block', `the stored header hashes to ${blockHash(record.header)}, not the stored hash ${record.hash}`);
    const txs = [];
    for (const hash of record.tx_hashes) {
      const stored = await source.getTx(hash);
      if (!stored) return diverged(h, 'block', `transaction ${hash} of block ${h} is not in the store`);
      txs.push(stored.tx);
    }
    const block: ProposedBlock = { header: record.header, hash: record.hash, txs, evidence: record.evidence ?? [] };

    const rawCert = await source.getCommit(h);
    if (!rawCert) return diverged(h, 'certificate', `the store holds no commit certificate for block ${h}`);
    const cert = certificateFromJson(JSON.parse(decoder.decode(rawCert)));
    if (!cert) return diverged(h, 'certificate', `the commit certificate of block ${h} does not decode`);
    if (`0x${toHex(cert.blockHash)}` !== record.hash) return diverged(h, 'certificate', `the certificate of height ${h} is for block 0x${toHex(cert.blockHash)}, the store holds ${record.hash}`);
    const verdict = verifyCommit(cert, new ValidatorSet(await replay.queries.validatorSetAt(h)), replay.chainId, o.provider);
    if (!verdict.ok) return diverged(h, 'certificate', `the commit certificate of block ${h} does not verify against the validator set of height ${h}: ${verdict.reason}`);

    const invalid = await replay.validate(block);
    if (invalid) return diverged(h, 'block', `replayed, block ${h} is invalid: ${invalid}`);
    const committed = await replay.finalize(block);
    if (committed.state_root !== record.state_root) return diverged(h, 'state_root', `replayed, block ${h} gives state root ${committed.state_root}; the store recorded ${record.state_root}`);

    const { minted, burned } = mintedAndBurned(await replay.queries.getBlockEvents(h), plugins);
    const now = (await heldCoins(replay.queries.state, plugins)).total;
    const expected = held + minted - burned - record.fees_burned;
    if (now !== expected) return diverged(h, 'supply', `after block ${h} ${now} ucoin are held; before it ${held}, minted ${minted}, burned ${burned} and fees burned ${record.fees_burned} make ${expected} (${now > expected ? 'created' : 'lost'}: ${now > expected ? now - expected : expected - now})`);
    held = now;
    o.onHeight?.(h);
  }
  return { audited: head, head };
}
