import type { KvReader, WriteBatch } from '../kv.js';

/**
 * In-memory KvReader over a Map of hex keys, for tests and the bench. It counts reads so tests
 * can pin how many nodes an update touches, and applies a WriteBatch the way the real store
 * does (in order, later operations on a key winning).
 */
export class MemoryKv implements KvReader {
  readonly map = new Map<string, Uint8Array>();
  reads = 0;

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    this.reads++;
    const value = this.map.get(hex(key));
    // A copy, as a database would return: the tree must not depend on sharing the stored buffer.
    return value === undefined ? undefined : value.slice();
  }

  apply(batch: WriteBatch): void {
    for (const op of batch.ops) {
      // Kept by reference: a batch's values are fresh arrays nobody writes to afterwards, and the
      // bench's million-key trees would otherwise allocate every node twice.
      if (op.type === 'put') this.map.set(hex(op.key), op.value);
      else this.map.delete(hex(op.key));
    }
  }

  get size(): number {
    return this.map.size;
  }
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}
