/**
 * Wire format between the pool and its workers. A batch travels as ONE freshly allocated
 * ArrayBuffer that is transferred, not cloned: the caller's Uint8Arrays are often views into
 * larger buffers (a decoded transaction, Node's shared Buffer pool), which must never be
 * transferred (that would detach them under the caller), so their bytes are copied once here.
 *
 * Layout (little-endian u32): count, then count x (sigLen, msgLen, pkLen), then the bytes of
 * each item's signature, message and public key in order.
 */
export interface VerifyItem {
  readonly signature: Uint8Array;
  readonly message: Uint8Array;
  readonly publicKey: Uint8Array;
}

export interface VerifyRequest {
  readonly id: number;
  readonly batch: ArrayBuffer;
}

/** results[i] is 1 when item i verified, 0 otherwise (a Uint8Array so it transfers back). */
export interface VerifyResponse {
  readonly id: number;
  readonly results: Uint8Array;
}

/** One signature to make (consensus votes and proposals): the bytes are cloned, never transferred. */
export interface SignRequest {
  readonly id: number;
  readonly sign: { readonly message: Uint8Array; readonly secretKey: Uint8Array };
}

/** The signature, or why the provider refused (the caller rethrows it). */
export interface SignResponse {
  readonly id: number;
  readonly signature?: Uint8Array;
  readonly error?: string;
}

/**
 * Sent once by a worker when its provider is loaded. A worker terminated while it still loads a
 * native addon (PQClean's) can abort the whole process (napi_throw during a terminating
 * environment: seen as a FATAL ERROR at the exit of `chain audit`), so the pool waits for this
 * before it terminates one.
 */
export interface ReadyNotice {
  readonly ready: true;
}

export type WorkerRequest = VerifyRequest | SignRequest;
export type WorkerResponse = VerifyResponse | SignResponse | ReadyNotice;

export function isReadyNotice(r: WorkerResponse): r is ReadyNotice {
  return 'ready' in r;
}

export function isSignRequest(r: WorkerRequest): r is SignRequest {
  return 'sign' in r;
}

export function packBatch(items: readonly VerifyItem[]): ArrayBuffer {
  const head = 4 * (1 + 3 * items.length);
  let size = head;
  for (const it of items) size += it.signature.length + it.message.length + it.publicKey.length;
  const buf = new ArrayBuffer(size);
  const view = new DataView(buf);
  const bytes = new Uint8Array(buf);
  view.setUint32(0, items.length, true);
  let off = head;
  items.forEach((it, i) => {
    const at = 4 + 12 * i;
    view.setUint32(at, it.signature.length, true);
    view.setUint32(at + 4, it.message.length, true);
    view.setUint32(at + 8, it.publicKey.length, true);
    for (const part of [it.signature, it.message, it.publicKey]) {
      bytes.set(part, off);
      off += part.length;
    }
  });
  return buf;
}

/** Views into `buf`, no copies: the worker owns the transferred buffer. */
export function unpackBatch(buf: ArrayBuffer): VerifyItem[] {
  const view = new DataView(buf);
  const n = view.getUint32(0, true);
  const items: VerifyItem[] = [];
  let off = 4 * (1 + 3 * n);
  for (let i = 0; i < n; i++) {
    const at = 4 + 12 * i;
    const lens = [view.getUint32(at, true), view.getUint32(at + 4, true), view.getUint32(at + 8, true)] as const;
    const parts = lens.map((len) => {
      const part = new Uint8Array(buf, off, len);
      off += len;
      return part;
    });
    items.push({ signature: parts[0]!, message: parts[1]!, publicKey: parts[2]! });
  }
  return items;
}
