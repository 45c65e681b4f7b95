import { NodeFault } from '../../../kernel/sdk.js';

const PAGE = 65_536;

/**
 * Contract memories kept for reuse. A WebAssembly.Memory reserves gigabytes of address space in
 * V8 (guard regions), returned only when the garbage collector finds it unreachable: a call tree
 * that instantiated a contract per level, in a loop, made V8 collect again and again under
 * address-space pressure (a self-calling contract ran 45 s for 10 000 gas) and could end in a
 * failed allocation. A memory goes back to the pool when its level ends, if it never grew, and is
 * zeroed when taken again: a reused memory is byte for byte a fresh one of the same shape (the
 * instance's data segments are written at instantiation), so nothing a contract can observe
 * depends on whether it got a new one. The zeroing is priced per initial page (INSTANCE_FUEL).
 */
export class MemoryPool {
  private readonly free = new Map<string, WebAssembly.Memory[]>();
  private size = 0;

  constructor(
    private readonly perShape = 16,
    private readonly total = 64,
  ) {}

  acquire(initial: number, maximum: number): WebAssembly.Memory {
    const kept = this.free.get(`${initial}:${maximum}`)?.pop();
    if (kept) {
      this.size--;
      new Uint8Array(kept.buffer).fill(0);
      return kept;
    }
    try {
      return new WebAssembly.Memory({ initial, maximum });
    } catch (err) {
      throw new NodeFault(`allocating a contract memory of ${initial} pages (at most ${maximum}) failed on this node: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** Takes a memory back when its level ended; one that grew is left to the collector (it no longer has its shape). */
  release(memory: WebAssembly.Memory, initial: number, maximum: number): void {
    if (memory.buffer.byteLength !== initial * PAGE || this.size >= this.total) return;
    const key = `${initial}:${maximum}`;
    let list = this.free.get(key);
    if (!list) this.free.set(key, (list = []));
    if (list.length >= this.perShape) return;
    list.push(memory);
    this.size++;
  }
}
