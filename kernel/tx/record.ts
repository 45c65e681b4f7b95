import type { Tx } from '../chain/types.js';
import { textBackedTx } from './text-backed-tx.js';

/**
 * The stored form of a transaction beside its canonical text (which the store keeps verbatim,
 * inline or in the text log): exactly what is needed to rebuild the in-memory Tx with it.
 */
export interface TxMetaRecord {
  hash: string;
  origin: 'signed' | 'system';
  target: string;
  from: string;
  to: string;
  value: bigint;
  nonce: bigint;
  gas_price: bigint;
  data?: string;
  sig_version?: 'v2' | 'v3';
  received_at: number;
}

export function txToMetaRecord(tx: Tx): TxMetaRecord {
  return {
    hash: tx.hash,
    origin: tx.origin,
    target: tx.target,
    from: tx.from,
    to: tx.to,
    value: tx.value,
    nonce: tx.nonce,
    gas_price: tx.gasPrice,
    ...(tx.data !== undefined ? { data: tx.data } : {}),
    ...(tx.sigVersion ? { sig_version: tx.sigVersion } : {}),
    received_at: tx.receivedAt,
  };
}

/** A stored transaction, its body parsed from `text` only if something reads it (RPC views do not). */
export function txFromStored(r: TxMetaRecord, text: Buffer): Tx {
  const fields = { hash: r.hash, origin: r.origin, target: r.target, from: r.from, to: r.to, value: r.value, nonce: r.nonce, gasPrice: r.gas_price, data: r.data, sigVersion: r.sig_version, receivedAt: r.received_at };
  return textBackedTx(fields, text, undefined);
}
