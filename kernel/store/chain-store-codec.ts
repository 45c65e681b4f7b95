import type { BlockEvent, BlockRecord, Receipt } from '../model/types.js';
import { jsonRecord } from '../state/record-codec.js';
import type { TxRecord } from '../tx/record.js';
import { utf8Bytes } from '../codec/utf8.js';
import { POINTER_BYTES, decodePointer, encodePointer, type LogPosition, type TextPointer, type TxTextLog } from './tx-text-log.js';
import type { AddressTotals, ChainMeta } from './chain-store.js';

/**
 * How ChainStore lays its records out in bytes: blocks, events, stored transactions (record and
 * receipt, then the body inline or a pointer into the text log), index entries, the text log's
 * position, per-address totals and the chain's meta record.
 */

const decoder = new TextDecoder();

export const blockCodec = jsonRecord<BlockRecord>();
export const eventCodec = jsonRecord<BlockEvent>();
const storedTxMetaCodec = jsonRecord<{ tx: Omit<TxRecord, 'body_json'>; receipt: Receipt }>();
const NEWLINE = 0x0a;

/** A marker after the newline that JSON text never starts with: the body is in the text log. */
const IN_TEXT_LOG = 0x00;

/**
 * A stored transaction: its record and receipt as JSON, a newline, then either the body's
 * canonical text verbatim (inline) or `IN_TEXT_LOG` and a 12-byte pointer into the text log.
 * JSON never contains a raw newline, so the first one splits the two, and the 10 KB body is
 * neither escaped on write nor unescaped on read.
 */
export const storedTxCodec = {
  split({ tx, receipt }: { tx: TxRecord; receipt: Receipt }): { meta: Uint8Array; body: Uint8Array } {
    const { body_json, ...rest } = tx;
    return { meta: storedTxMetaCodec.encode({ tx: rest, receipt }), body: utf8Bytes(body_json) };
  },
  inline(meta: Uint8Array, body: Uint8Array): Uint8Array {
    const out = new Uint8Array(meta.length + 1 + body.length);
    out.set(meta, 0);
    out[meta.length] = NEWLINE;
    out.set(body, meta.length + 1);
    return out;
  },
  pointing(meta: Uint8Array, pointer: TextPointer): Uint8Array {
    const out = new Uint8Array(meta.length + 2 + POINTER_BYTES);
    out.set(meta, 0);
    out[meta.length] = NEWLINE;
    out[meta.length + 1] = IN_TEXT_LOG;
    encodePointer(pointer, out, meta.length + 2);
    return out;
  },
  /** The record and receipt only: neither the text log nor the 10 KB body is read. */
  decodeMeta(bytes: Uint8Array): { tx: Omit<TxRecord, 'body_json'>; receipt: Receipt; cut: number } {
    const cut = bytes.indexOf(NEWLINE);
    if (cut < 0) throw new Error('store integrity: a stored transaction has no body');
    return { ...storedTxMetaCodec.decode(bytes.subarray(0, cut)), cut };
  },
  async decode(bytes: Uint8Array, textLog: TxTextLog | undefined): Promise<{ tx: TxRecord; receipt: Receipt }> {
    const { tx, receipt, cut } = storedTxCodec.decodeMeta(bytes);
    let body = bytes.subarray(cut + 1);
    if (body[0] === IN_TEXT_LOG) {
      if (!textLog) throw new Error('store integrity: a stored transaction points into a text log this store was opened without');
      body = await textLog.read(decodePointer(bytes, cut + 2));
    }
    return { tx: { ...tx, body_json: decoder.decode(body) }, receipt };
  },
};
/**
 * An entry of the global and per-address transaction indexes: the `0x` hash, then a space and the
 * transaction's type (`Tx.target`), so a list filtered by type reads the index alone. Entries
 * written before the type was added hold the hash only.
 */
export const txIndexEntry = {
  encode(hash: string, target: string): Uint8Array {
    return utf8Bytes(`${hash} ${target}`);
  },
  decode(v: Uint8Array): { hash: string; target: string | undefined } {
    const text = decoder.decode(v);
    const cut = text.indexOf(' ');
    return cut < 0 ? { hash: text, target: undefined } : { hash: text.slice(0, cut), target: text.slice(cut + 1) };
  },
};
export const positionCodec = jsonRecord<LogPosition>();
export const totalsCodec = jsonRecord<AddressTotals>();
export const metaCodec = jsonRecord<ChainMeta>();
