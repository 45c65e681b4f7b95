import type { Logger } from 'pino';
import { SET_CHANGE_DELAY } from '../state/validator-history.js';
import type { Chain } from '../chain/chain.js';
import type { Validator } from '../consensus/types.js';
import type { KvOp, KvStore } from '../state/kv.js';
import type { BlockEvent } from '../model/types.js';
import { LIGHT_CLIENT_HEADER_REQUESTED } from '../context/contexts.js';
import { IBC_HEADER_TAG, ibcHeaderMessage } from '../light-client/ibc-header.js';
import { IBC_VALSET_KEY, compareIbcKeys } from '../light-client/ibc-client.js';
import { exceeds, TWO_THIRDS } from '../light-client/commit.js';
import { utf8Bytes } from '../codec/utf8.js';
import { concat, PREFIX, prefixEnd, readU64, u64 } from '../store/keys.js';
import { envelope, parseJsonBody, TAG_LC_HEADER_SIGNATURE } from './envelope.js';

/**
 * The chain side of IBC commit headers (decisions.md §64). At every height that needs a header
 * (a multiple of `ibc_header_interval`, a block that changed the validator set, a block whose
 * plugin asked with `ctx.requestLightClientHeader()`), each validator of the set that committed
 * the block signs `ch-pq-lc-v1|<chain_id>|<h>|<block_hash>|<state_root>` and gossips it; every
 * node collects the signatures it can verify and serves the header once they hold more than 2/3
 * of that set's power (`GET /api/v1/ibc/header/latest`, `/ibc/header/:height`).
 *
 * Node-local, outside consensus: which signatures a node holds is not state. Everything is kept
 * in the chain's LevelDB beside the blocks, each write synced, so a restarted node serves the
 * headers it served before and signs the heights it committed while it was down.
 *
 * Gossip is bounded: a signature is accepted only from a member of the committing set, for a
 * header height this node committed (or, for up to AHEAD heights above its head, parked until it
 * commits them, at most one per validator and height), verified before it is stored, and relayed
 * once, the first time it is seen, to the peers other than its sender: each signature crosses
 * each link at most twice, whatever peers send.
 */

/** Heights above the head whose signatures are parked until the block commits. */
export const AHEAD = 8;
/** Parked signatures per height (about 6.6 KB each): bounds what peers can make a node hold to ~13 MB. */
const MAX_PARKED_PER_HEIGHT = 256;
/** Peer messages waiting in the queue; more are dropped (a flood costs the sender, not this node's memory). */
const MAX_QUEUED = 1_024;
/** Header heights kept (signatures and set); older ones are deleted (docs/architecture.md, "Light-client commit headers"). */
export const RETAINED_HEADERS = 10_000;

/** Heights back from the head a data folder without header records is caught up over. */
const FIRST_START_HEIGHTS = 1_000;
const PROCESSED_WRITE_EVERY = 100;
const HEADER_PREFIX = PREFIX.lightClientHeader;
const SIGNATURE_PREFIX = PREFIX.lightClientSignature;
const PROCESSED_KEY = utf8Bytes(`${PREFIX.lightClientMeta}processed`);

/** The record of a header height: what the signers signed and who may sign. */
interface HeaderRecord {
  readonly height: number;
  readonly block_hash: string;
  readonly state_root: string;
  /** The set that committed the block, as consensus read it, in address order. */
  readonly signers: ReadonlyArray<{ readonly address: string; readonly public_key: string; readonly power: string }>;
}

/** A header as §64 serves it. */
export interface ServedIbcHeader {
  chain_id: string;
  height: number;
  block_hash: string;
  state_root: string;
  message: string;
  signatures: Array<{ validator: string; public_key: string; power: bigint; signature: string }>;
  signed_power: bigint;
  total_power: bigint;
  validators: Array<{ public_key: string; power: bigint }>;
  validators_proof: unknown;
}

export interface HeaderSignatureMessage {
  readonly height: number;
  readonly validator: string;
  readonly signature: string;
}

export interface LightClientHeadersOptions {
  readonly chain: Pick<Chain, 'chainId' | 'head' | 'queries' | 'on'>;
  readonly kv: KvStore;
  /** This node's validator address and its signer of kernel statements; null when it holds no validator key. */
  readonly signer: { readonly address: string; sign(domain: string, text: string): Uint8Array } | null;
  readonly verify: (signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array) => boolean | Promise<boolean>;
  /** `ibc_header_interval` as committed state holds it now. */
  readonly interval: () => Promise<bigint>;
  readonly log: Logger;
}

/** What the collector sends: everyone but `except` (the sender of a relayed signature). */
export type HeaderGossip = (bytes: Uint8Array, except: string | null) => void;

const HEX_RE = /^[0-9a-f]+$/;
const ADDRESS_MAX = 128;
const SIGNATURE_HEX_MAX = 2 * 4_627; // ML-DSA-87's length bounds any ML-DSA signature

export function parseHeaderSignature(x: unknown): HeaderSignatureMessage | null {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) return null;
  const { height, validator, signature } = x as Record<string, unknown>;
  if (typeof height !== 'number' || !Number.isSafeInteger(height) || height < 1) return null;
  if (typeof validator !== 'string' || validator.length === 0 || validator.length > ADDRESS_MAX) return null;
  if (typeof signature !== 'string' || signature.length === 0 || signature.length > SIGNATURE_HEX_MAX || signature.length % 2 !== 0 || !HEX_RE.test(signature)) return null;
  return { height, validator, signature };
}

function headerKey(height: number): Uint8Array {
  return concat(HEADER_PREFIX, u64(height));
}

function signatureKey(height: number, validator: string): Uint8Array {
  return concat(SIGNATURE_PREFIX, u64(height), validator);
}

/** Whether block `height`, with these events, needs a commit header (decisions.md §64). */
export function needsHeader(height: number, interval: bigint, events: readonly Pick<BlockEvent, 'type'>[]): boolean {
  if (interval > 0n && BigInt(height) % interval === 0n) return true;
  return events.some((e) => e.type === 'validator_update' || e.type === LIGHT_CLIENT_HEADER_REQUESTED);
}

export class LightClientHeaders {
  /** Header heights held, ascending. */
  private heights: number[] = [];
  /** Per header height: validator → signature, as stored. */
  private readonly signatures = new Map<number, Map<string, Uint8Array>>();
  private readonly records = new Map<number, HeaderRecord>();
  /** Signatures of heights this node has not processed yet: height → validator → message and sender. */
  private readonly parked = new Map<number, Map<string, { msg: HeaderSignatureMessage; from: string }>>();
  private processed = 0;
  private queue: Promise<void> = Promise.resolve();
  private gossip: HeaderGossip = () => undefined;
  private report: (peer: string, reason: string) => void = () => undefined;
  private queued = 0;
  private stopped = false;

  constructor(private readonly o: LightClientHeadersOptions) {}

  /** Loads what was stored, then follows commits (the heights committed while down are caught up first). */
  async start(): Promise<void> {
    for await (const [key, value] of this.o.kv.iterate({ gte: utf8Bytes(HEADER_PREFIX), lt: prefixEnd(utf8Bytes(HEADER_PREFIX)) })) {
      const record = JSON.parse(new TextDecoder().decode(value)) as HeaderRecord;
      this.records.set(readU64(key, HEADER_PREFIX.length), record);
    }
    for await (const [key, value] of this.o.kv.iterate({ gte: utf8Bytes(SIGNATURE_PREFIX), lt: prefixEnd(utf8Bytes(SIGNATURE_PREFIX)) })) {
      const height = readU64(key, SIGNATURE_PREFIX.length);
      const validator = new TextDecoder().decode(key.subarray(SIGNATURE_PREFIX.length + 8));
      this.signaturesAt(height).set(validator, value);
    }
    this.heights = [...this.records.keys()].sort((a, b) => a - b);
    const raw = await this.o.kv.get(PROCESSED_KEY);
    // A data folder of an earlier build: its recent heights only (the committing sets of older ones
    // may be past what the validator history keeps).
    this.processed = raw === undefined ? Math.max(0, this.o.chain.head.height - FIRST_START_HEIGHTS) : Number(new TextDecoder().decode(raw));
    this.o.chain.on('committed', () => this.enqueue(() => this.catchUp()));
    await this.enqueue(() => this.catchUp());
  }

  /** Where signatures go from now on (the P2P transport once BFT runs; nowhere for a lone validator). */
  attach(gossip: HeaderGossip, report?: (peer: string, reason: string) => void): void {
    this.gossip = gossip;
    if (report) this.report = report;
    // Peers that missed this node's recent signatures (it was down, or they were) get them again.
    void this.enqueue(async () => {
      for (const h of this.heights.slice(-AHEAD)) this.resendOwn(h);
    });
  }

  stop(): Promise<void> {
    this.stopped = true;
    return this.queue;
  }

  /** A peer's message; false when it is malformed (the caller reports the peer). */
  receive(from: string, body: Uint8Array): boolean {
    const msg = parseHeaderSignature(parseJsonBody(body));
    if (msg === null) return false;
    if (this.queued >= MAX_QUEUED) return true;
    this.queued++;
    void this.enqueue(() => {
      this.queued--;
      return this.accept(msg, from);
    });
    return true;
  }

  /** The header at `height` once more than 2/3 of its set's power signed it; undefined otherwise. */
  async header(height: number): Promise<ServedIbcHeader | undefined> {
    await this.queue;
    const record = this.records.get(height);
    if (record === undefined || !this.complete(height)) return undefined;
    return this.assemble(record);
  }

  /** The newest served header; undefined before the first. */
  async latest(): Promise<ServedIbcHeader | undefined> {
    await this.queue;
    for (let i = this.heights.length - 1; i >= 0; i--) {
      const h = this.heights[i]!;
      if (this.complete(h)) return this.assemble(this.records.get(h)!);
    }
    return undefined;
  }

  private enqueue(task: () => Promise<void>): Promise<void> {
    const run = this.queue.then(() => (this.stopped ? undefined : task()));
    this.queue = run.catch((err: unknown) => this.o.log.error({ err }, 'light-client header task failed'));
    return this.queue;
  }

  private signaturesAt(height: number): Map<string, Uint8Array> {
    let m = this.signatures.get(height);
    if (m === undefined) this.signatures.set(height, (m = new Map()));
    return m;
  }

  private signedPower(height: number): { signed: bigint; total: bigint } {
    const record = this.records.get(height);
    const sigs = this.signatures.get(height);
    let signed = 0n;
    let total = 0n;
    for (const v of record?.signers ?? []) {
      total += BigInt(v.power);
      if (sigs?.has(v.address)) signed += BigInt(v.power);
    }
    return { signed, total };
  }

  private complete(height: number): boolean {
    const { signed, total } = this.signedPower(height);
    return total > 0n && exceeds(signed, total, TWO_THIRDS);
  }

  /** Every committed height not yet looked at: record it when it needs a header, sign it, take parked signatures. */
  private async catchUp(): Promise<void> {
    const head = this.o.chain.head.height;
    while (this.processed < head && !this.stopped) {
      const h = this.processed + 1;
      const events = await this.o.chain.queries.getBlockEvents(h);
      const opened = needsHeader(h, await this.o.interval(), events);
      if (opened) await this.open(h);
      this.processed = h;
      // Synced with each header; otherwise now and then, since looking at a height again after a
      // crash adds nothing: a header's record and this node's signature were written together.
      if (opened || h % PROCESSED_WRITE_EVERY === 0) await this.o.kv.write([{ type: 'put', key: PROCESSED_KEY, value: utf8Bytes(String(h)) }], opened);
      const parked = this.parked.get(h);
      this.parked.delete(h);
      for (const { msg, from } of parked?.values() ?? []) await this.accept(msg, from);
    }
    for (const h of [...this.parked.keys()]) if (h <= this.processed || h > this.processed + AHEAD) this.parked.delete(h);
  }

  /** Records header height `h` with its committing set, and signs it when this node is of that set. */
  private async open(h: number): Promise<void> {
    // Looked at again after a crash before `processed` was written: the record and this node's
    // signature were written together, so there is nothing to add.
    if (this.records.has(h)) return;
    const block = await this.o.chain.queries.getBlock(h);
    if (block === undefined) return; // a node started from a later snapshot holds no such block
    const set: Validator[] = await this.o.chain.queries.validatorSetAt(h);
    const record: HeaderRecord = { height: h, block_hash: block.hash, state_root: block.state_root, signers: set.map((v) => ({ address: v.address, public_key: v.public_key, power: v.power.toString() })) };
    const ops: KvOp[] = [{ type: 'put', key: headerKey(h), value: utf8Bytes(JSON.stringify(record)) }];
    const signer = this.o.signer;
    let own: Uint8Array | undefined;
    if (signer && set.some((v) => v.address === signer.address)) {
      own = signer.sign(IBC_HEADER_TAG, ibcHeaderMessage(this.o.chain.chainId, h, block.hash, block.state_root));
      ops.push({ type: 'put', key: signatureKey(h, signer.address), value: own });
    }
    const dropped = this.heights.length >= RETAINED_HEADERS ? this.heights.slice(0, this.heights.length - RETAINED_HEADERS + 1) : [];
    for (const old of dropped) {
      ops.push({ type: 'del', key: headerKey(old) });
      for (const v of this.signatures.get(old)?.keys() ?? []) ops.push({ type: 'del', key: signatureKey(old, v) });
    }
    await this.o.kv.write(ops, true);
    for (const old of dropped) {
      this.records.delete(old);
      this.signatures.delete(old);
    }
    this.heights = [...this.heights.slice(dropped.length), h];
    this.records.set(h, record);
    if (own !== undefined && signer) {
      this.signaturesAt(h).set(signer.address, own);
      this.gossip(envelope(TAG_LC_HEADER_SIGNATURE, { height: h, validator: signer.address, signature: Buffer.from(own).toString('hex') }), null);
      this.o.log.debug({ height: h }, 'light-client header signed');
    }
  }

  private resendOwn(h: number): void {
    const signer = this.o.signer;
    const sig = signer ? this.signatures.get(h)?.get(signer.address) : undefined;
    if (signer && sig) this.gossip(envelope(TAG_LC_HEADER_SIGNATURE, { height: h, validator: signer.address, signature: Buffer.from(sig).toString('hex') }), null);
  }

  /** A signature from a peer: parked, dropped, or verified, stored and relayed once. */
  private async accept(msg: HeaderSignatureMessage, from: string): Promise<void> {
    const h = msg.height;
    if (h > this.processed) {
      if (h > this.processed + AHEAD) return;
      // Only names of the set in force (known up to head + SET_CHANGE_DELAY, the nearest known set
      // beyond): a peer cannot take the slots of a height with invented validators and crowd out
      // the genuine signatures, which their signers send once.
      const known = this.o.chain.head.height + SET_CHANGE_DELAY;
      const set = await this.o.chain.queries.validatorSetAt(Math.min(h, known));
      if (!set.some((v) => v.address === msg.validator)) {
        // Beyond the known set a joining validator is not listed yet: dropped, not the sender's fault.
        if (h <= known) this.report(from, 'light-client header signature names no validator of the set');
        return;
      }
      let at = this.parked.get(h);
      if (at === undefined) this.parked.set(h, (at = new Map()));
      // One per validator and height; which set a height has is known only once it commits, so
      // the map is bounded by AHEAD heights × the addresses peers name, each capped per height.
      if (!at.has(msg.validator) && at.size < MAX_PARKED_PER_HEIGHT) at.set(msg.validator, { msg, from });
      return;
    }
    const record = this.records.get(h);
    if (record === undefined) return; // not a header height, or one no longer kept
    if (this.signatures.get(h)?.has(msg.validator)) return; // seen: dedupe, no relay
    const member = record.signers.find((v) => v.address === msg.validator);
    if (member === undefined) return;
    const signature = Uint8Array.from(Buffer.from(msg.signature, 'hex'));
    const text = ibcHeaderMessage(this.o.chain.chainId, h, record.block_hash, record.state_root);
    let ok = false;
    try {
      ok = await this.o.verify(signature, utf8Bytes(text), Uint8Array.from(Buffer.from(member.public_key, 'hex')));
    } catch {
      ok = false;
    }
    if (!ok) {
      // The signer relays only what verified, so a bad one is the sender's doing.
      this.o.log.warn({ peer: from, height: h, validator: msg.validator }, 'light-client header signature does not verify: dropped');
      this.report(from, 'light-client header signature does not verify');
      return;
    }
    await this.o.kv.write([{ type: 'put', key: signatureKey(h, msg.validator), value: signature }], true);
    this.signaturesAt(h).set(msg.validator, signature);
    this.gossip(envelope(TAG_LC_HEADER_SIGNATURE, msg), from);
  }

  private async assemble(record: HeaderRecord): Promise<ServedIbcHeader> {
    const h = record.height;
    const proof = await this.o.chain.queries.proveState(IBC_VALSET_KEY, h);
    const text = typeof proof.value_hex === 'string' ? Buffer.from(proof.value_hex, 'hex').toString('utf8') : '';
    const validators = text === '' ? [] : text.split('\n').map((line) => {
      const [public_key, power] = line.split('|');
      return { public_key: public_key!, power: BigInt(power!) };
    });
    const sigs = this.signatures.get(h) ?? new Map<string, Uint8Array>();
    const signatures = record.signers.filter((v) => sigs.has(v.address)).sort((x, y) => compareIbcKeys(x.public_key, y.public_key)).map((v) => ({
      validator: v.address,
      public_key: v.public_key,
      power: BigInt(v.power),
      signature: Buffer.from(sigs.get(v.address)!).toString('hex'),
    }));
    const { signed, total } = this.signedPower(h);
    return {
      chain_id: this.o.chain.chainId,
      height: h,
      block_hash: record.block_hash,
      state_root: record.state_root,
      message: ibcHeaderMessage(this.o.chain.chainId, h, record.block_hash, record.state_root),
      signatures,
      signed_power: signed,
      total_power: total,
      validators,
      validators_proof: proof.proof,
    };
  }
}
