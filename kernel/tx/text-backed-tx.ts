import type { Tx } from '../chain/types.js';

/**
 * A transaction whose canonical text is kept as UTF-8 bytes and whose body is parsed from them
 * only when read.
 *
 * Why: a pending transfer's 10.6 KB text and the 10.5 KB of hex in its parsed body lived on V8's
 * young heap for the second or two between admission and commit: long enough to be copied by one
 * scavenge and promoted by the next. At 230 tx/s those strings were most of the 8-9 MB every
 * scavenge copied on each validator (`--trace-gc-nvp`), and scavenges were the longest pauses of
 * the event loop. A Buffer this size keeps its bytes outside the V8 heap, so a scavenge moves a
 * small wrapper instead. Nothing on the hot path needs the body after admission: execution reads
 * the typed fields, proposals name the id, the relay, the WAL and the store write the bytes.
 *
 * `canonical` and `body` are getters that decode on every read (a copy, never cached, so the
 * strings die young). A spread copy (`{ ...tx }`) reads them once and holds them as plain values:
 * correct, a plain Tx again, but back on the heap; `withGasPrice` copies without that.
 */
const TEXT: unique symbol = Symbol('tx text');
const OWN_GAS_PRICE: unique symbol = Symbol('tx sets gas_price');

type TextBacked = Tx & { readonly [TEXT]: Buffer; readonly [OWN_GAS_PRICE]: boolean | undefined };

export type TxFields = Omit<Tx, 'body' | 'canonical'>;

/**
 * `text` must be the UTF-8 of the canonical JSON the hash covers; `ownGasPrice` says whether that
 * body names a `gas_price` (a block may then not replace it with its base fee), undefined if the
 * caller does not know (it is then read from the body when asked).
 */
export function textBackedTx(fields: TxFields, text: Buffer, ownGasPrice: boolean | undefined): Tx {
  const tx = {
    hash: fields.hash,
    origin: fields.origin,
    target: fields.target,
    from: fields.from,
    to: fields.to,
    value: fields.value,
    nonce: fields.nonce,
    gasPrice: fields.gasPrice,
    data: fields.data,
    sigVersion: fields.sigVersion,
    receivedAt: fields.receivedAt,
    get canonical(): string {
      return text.toString('utf8');
    },
    get body(): Readonly<Record<string, unknown>> {
      return JSON.parse(text.toString('utf8')) as Record<string, unknown>;
    },
  };
  // Not enumerable: a spread copy or a deep comparison sees the plain transaction fields only.
  Object.defineProperty(tx, TEXT, { value: text });
  Object.defineProperty(tx, OWN_GAS_PRICE, { value: ownGasPrice });
  return tx;
}

function isTextBacked(tx: Tx): tx is TextBacked {
  return (tx as Partial<TextBacked>)[TEXT] !== undefined;
}

/** The bytes a text-backed transaction holds; undefined for anything else (a plain Tx, a relayed text). */
export function heldText(x: { readonly canonical: string }): Buffer | undefined {
  return (x as Partial<TextBacked>)[TEXT];
}

/** The canonical text's UTF-8 bytes: the held ones for a text-backed transaction, else encoded now. */
export function txText(tx: { readonly canonical: string }): Uint8Array {
  return heldText(tx) ?? Buffer.from(tx.canonical, 'utf8');
}

/** Byte length of the canonical text (what a block's size bound counts), without decoding held bytes. */
export function txTextBytes(tx: { readonly canonical: string }): number {
  return heldText(tx)?.byteLength ?? Buffer.byteLength(tx.canonical, 'utf8');
}

/** Whether the sender set `gas_price` in the signed body (read without parsing a text-backed body). */
export function setsOwnGasPrice(tx: Tx): boolean {
  return (isTextBacked(tx) ? tx[OWN_GAS_PRICE] : undefined) ?? tx.body.gas_price !== undefined;
}

/** The same transaction paying `gasPrice`; a text-backed one stays text-backed. */
export function withGasPrice(tx: Tx, gasPrice: bigint): Tx {
  if (isTextBacked(tx)) return textBackedTx({ ...fieldsOf(tx), gasPrice }, tx[TEXT], tx[OWN_GAS_PRICE]);
  return { ...tx, gasPrice };
}

function fieldsOf(tx: Tx): TxFields {
  return { hash: tx.hash, origin: tx.origin, target: tx.target, from: tx.from, to: tx.to, value: tx.value, nonce: tx.nonce, gasPrice: tx.gasPrice, data: tx.data, sigVersion: tx.sigVersion, receivedAt: tx.receivedAt };
}
