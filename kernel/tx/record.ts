import type { SignatureLayout, Tx } from '../model/types.js';

/** The stored form of a transaction: exactly what is needed to rebuild the in-memory Tx. */
export interface TxRecord {
  hash: string;
  origin: 'signed' | 'system';
  target: string;
  from: string;
  to: string;
  value: bigint;
  nonce: bigint;
  gas_price: bigint;
  data?: string;
  /** The canonical JSON text of the body (what the hash covers), stored as text so it is never re-derived. */
  body_json: string;
  sig_version?: SignatureLayout;
  received_at: number;
}

export function txToRecord(tx: Tx): TxRecord {
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
    body_json: tx.canonical,
    ...(tx.sigVersion ? { sig_version: tx.sigVersion } : {}),
    received_at: tx.receivedAt,
  };
}

/** A transaction without its body and canonical text: what RPC views and receipts need. */
export type TxFields = Omit<Tx, 'body' | 'canonical'>;

export function txFieldsFromRecord(r: Omit<TxRecord, 'body_json'>): TxFields {
  return {
    hash: r.hash,
    origin: r.origin,
    target: r.target,
    from: r.from,
    to: r.to,
    value: r.value,
    nonce: r.nonce,
    gasPrice: r.gas_price,
    data: r.data,
    sigVersion: r.sig_version,
    receivedAt: r.received_at,
  };
}

export function txFromRecord(r: TxRecord): Tx {
  return { ...txFieldsFromRecord(r), body: JSON.parse(r.body_json) as Record<string, unknown>, canonical: r.body_json };
}
