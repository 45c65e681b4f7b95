/**
 * Short byte runs handed out as views of small shared chunks. The tree keeps tens of thousands of
 * 32- and 64-byte arrays alive (hashes, child pairs of pending nodes and the LRU): an ArrayBuffer
 * of its own for each is native memory the GC tracks one by one, while a chunk lives as long as
 * any view of it, so chunks are kept small (a view pins at most the chunk's bytes). Nothing may
 * write into a view once handed out (docs/performance.md, "Cutting c").
 */
export class SmallChunks {
  private chunk = new Uint8Array(0);
  private at = 0;

  constructor(private readonly chunkBytes: number) {}

  /** A fresh view of `n` bytes (n ≤ chunkBytes), zeroed, for the caller to fill once. */
  take(n: number): Uint8Array {
    const at = this.reserve(n);
    return this.chunk.subarray(at, at + n);
  }

  /**
   * `n` fresh bytes (n ≤ chunkBytes) of `current` from the returned offset, for a caller that fills
   * them and makes its own views of parts of them (two hashes of one copied pair, not three views).
   */
  reserve(n: number): number {
    if (this.at + n > this.chunk.length) {
      this.chunk = new Uint8Array(this.chunkBytes);
      this.at = 0;
    }
    const at = this.at;
    this.at = at + n;
    return at;
  }

  /** The chunk the last `reserve` or `take` handed out bytes of. */
  get current(): Uint8Array {
    return this.chunk;
  }
}
