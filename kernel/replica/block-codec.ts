import type { JsonValue } from '../codec/json.js';
import { hashOfCanonical, isCanonicalTextOf } from '../tx/hash.js';
import type { BlockCodec, ConsensusMessage } from '../consensus/wire.js';
import { MAX_EVIDENCE_PER_BLOCK, type Chain, type ProposedBlock } from '../chain/chain.js';
import type { BlockHeader, Evidence } from '../model/types.js';
import type { FetchedTxs } from './fetched-txs.js';
import { isHash0x } from '../codec/hex.js';
import { txRoot } from '../chain/block-hash.js';
import { nestingProblem } from '../codec/depth.js';

/**
 * Blocks on the consensus wire and in the WAL. A transaction travels either as its canonical
 * JSON text with its id (full form: catch-up, old WAL entries) or as its id alone (compact form:
 * proposals, whose transactions every validator already holds from the relay at submission).
 * Decoding takes every field from a text this node hashed itself (the pending transaction
 * admission built, a text fetched from a peer and hashed on arrival, or Chain.rebuildTx), so a
 * peer cannot pair a signed body with other fields or an id with another text; header and
 * evidence are re-checked by Chain.validate before any vote.
 */
type Obj = Record<string, unknown>;

const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);
const isInt = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
const MAX_TXS = 20_000;

export function headerToJson(h: BlockHeader): Obj {
  return { ...h, base_fee: Number(h.base_fee) };
}

export function headerFromJson(x: unknown): BlockHeader | undefined {
  if (!isObj(x)) return undefined;
  const { chain_id, height, round, parent_hash, proposer, timestamp, tx_root, tx_count, prev_state_root, base_fee, shard, evidence_hash, validators_hash, next_validators_hash } = x;
  if (typeof chain_id !== 'string' || !isInt(height) || !isInt(round) || !isHash0x(parent_hash) || typeof proposer !== 'string' || !isInt(timestamp)) return undefined;
  if (!isHash0x(tx_root) || !isInt(tx_count) || !isHash0x(prev_state_root) || !isInt(base_fee) || !isInt(shard) || !isHash0x(evidence_hash)) return undefined;
  if (!isHash0x(validators_hash) || !isHash0x(next_validators_hash)) return undefined;
  if (Object.keys(x).length !== 14) return undefined;
  return { chain_id, height, round, parent_hash, proposer, timestamp, tx_root, tx_count, prev_state_root, base_fee: BigInt(base_fee), shard, evidence_hash, validators_hash, next_validators_hash };
}

function evidenceFromJson(x: unknown): Evidence | undefined {
  if (!isObj(x) || !isHash0x(x.hash) || x.kind !== 'duplicate-vote' || typeof x.validator !== 'string' || !isInt(x.height) || !isInt(x.round)) return undefined;
  return { hash: x.hash, kind: 'duplicate-vote', validator: x.validator, height: x.height, round: x.round, raw: x.raw };
}

/**
 * A compact proposal names transactions this node neither holds nor has fetched: the decoder's
 * answer in place of a block, so the replica can ask the sender for their texts and decode again.
 */
export class MissingTransactions {
  constructor(
    readonly missing: ReadonlyArray<{ readonly origin: 'signed' | 'system'; readonly hash: string }>,
    /** The block's header; its transaction ids already match its tx_root and tx_count. */
    readonly header: BlockHeader,
  ) {}
}

/** A message whose block names transactions we lack is, outside a fresh proposal, undecodable. */
export function withoutMissing(m: ConsensusMessage | null): ConsensusMessage | null {
  return m && m.kind !== 'vote' && m.block instanceof MissingTransactions ? null : m;
}

export interface BlockCodecOptions {
  /** Encode transactions by id only (proposals); decoding accepts both forms either way. */
  readonly compact?: boolean;
  /** Texts fetched from peers or replayed from the WAL, for ids not pending here. */
  readonly fetched?: FetchedTxs;
}

export function proposedBlockCodec(chain: Chain, options: BlockCodecOptions = {}): BlockCodec {
  const fetched = options.fetched;
  return {
    encode(block: unknown): JsonValue {
      const b = block as ProposedBlock;
      return {
        header: headerToJson(b.header) as JsonValue,
        hash: b.hash,
        // Full form: each body as its canonical text (what the hash covers, never re-serialised
        // field by field) with its id, so a receiver finds the pending copy without hashing the
        // text again. Compact form: the id alone.
        txs: options.compact ? b.txs.map((t) => ({ origin: t.origin, hash: t.hash })) : b.txs.map((t) => ({ origin: t.origin, hash: t.hash, canonical: t.canonical })),
        evidence: b.evidence as unknown as JsonValue,
      };
    },
    decode(json: unknown): ProposedBlock | MissingTransactions | undefined {
      if (!isObj(json) || !isHash0x(json.hash) || !Array.isArray(json.txs) || !Array.isArray(json.evidence)) return undefined;
      if (json.txs.length > MAX_TXS || json.evidence.length > MAX_EVIDENCE_PER_BLOCK) return undefined;
      const header = headerFromJson(json.header);
      if (!header) return undefined;
      const missing: Array<{ origin: 'signed' | 'system'; hash: string }> = [];
      try {
        const txs = json.txs.map((t) => {
          if (!isObj(t) || (t.origin !== 'signed' && t.origin !== 'system')) throw new Error('malformed transaction');
          if (t.canonical === undefined) {
            // Compact form: the id must name a text this node hashed itself.
            if (!isHash0x(t.hash)) throw new Error('malformed transaction id');
            const held = chain.pendingTx(t.hash);
            if (held && held.origin === t.origin) return chain.priced(held, held.sigVersion, header.base_fee);
            const text = fetched?.get(t.hash, t.origin);
            if (!text) {
              missing.push({ origin: t.origin, hash: t.hash });
              return undefined;
            }
            return fromText(chain, t.origin, text.canonical, t.hash, header);
          }
          if (typeof t.canonical !== 'string') throw new Error('malformed transaction');
          // Usually already pending here (relayed at submission). The pending copy was hashed at
          // admission, so the same text under the same id needs no hashing again; any other text
          // is hashed and must match the id it came with (WAL entries written before ids
          // travelled have none, and are hashed).
          if (t.hash !== undefined && !isHash0x(t.hash)) throw new Error('malformed transaction id');
          const claimed = t.hash as string | undefined;
          const held = claimed !== undefined ? chain.pendingTx(claimed) : undefined;
          const known = held !== undefined && held.canonical === t.canonical;
          const hash = known ? claimed! : hashOfCanonical(t.canonical);
          if (claimed !== undefined && claimed !== hash) throw new Error('transaction id does not match its text');
          const pending = known ? held : chain.pendingTx(hash);
          if (pending && pending.origin === t.origin) return chain.priced(pending, pending.sigVersion, header.base_fee);
          return fromText(chain, t.origin, t.canonical, hash, header);
        });
        const evidence = json.evidence.map((e) => {
          const ev = evidenceFromJson(e);
          if (!ev) throw new Error('malformed evidence');
          return ev;
        });
        if (missing.length > 0) {
          // Only a list the header commits to is worth waiting for: the replica then checks the
          // header against the proposer's signed block hash.
          const ids = txs.map((t, i) => (t ? t.hash : ((json.txs as Obj[])[i]!.hash as string)));
          if (header.tx_count !== ids.length || header.tx_root !== txRoot(ids)) return undefined;
          return new MissingTransactions(missing, header);
        }
        return { header, hash: json.hash, txs: txs as ProposedBlock['txs'], evidence };
      } catch {
        return undefined;
      }
    },
  };
}

/** A transaction rebuilt from a text whose hash is `hash`; only canonical text is accepted, so the id is the hash of exactly that text. */
function fromText(chain: Chain, origin: 'signed' | 'system', canonical: string, hash: string, header: BlockHeader): ProposedBlock['txs'][number] {
  // Refused before the canonical-text match, which recurses over the body (docs/threats.md).
  const tooDeep = nestingProblem(canonical, undefined);
  if (tooDeep) throw new Error(tooDeep);
  const body: unknown = JSON.parse(canonical);
  if (!isObj(body) || !isCanonicalTextOf(canonical, body)) throw new Error('transaction text is not canonical JSON');
  return chain.rebuildTx(origin, body, header.base_fee, header.timestamp, { canonical, hash });
}
