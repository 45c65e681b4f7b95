import { open, rename, rm } from 'node:fs/promises';
import { toHex } from '../codec/hex.js';
import type { KeyPair, SignatureProvider } from '../crypto/provider.js';
import type { StateView } from '../store/chain-store.js';
import { EntriesHasher, entryJson, signSnapshotHead, type SnapshotBlocks, type SnapshotHead } from './snapshot.js';

/** Bytes gathered before a write to the file: a write per entry would be a system call per key. */
const WRITE_CHUNK = 256 * 1024;

/**
 * Writes a state snapshot to `path` as it reads the state, so that neither the entries nor their
 * JSON are ever held whole: memory stays at one chunk however large the state. The JSON is the
 * snapshot of `snapshot.ts` (the same fields; the head first, then the entries one per line, then
 * `entries_hash` and the signature, which need every entry first), so any JSON reader takes it.
 * The file appears under `path` only once complete (written beside it, then renamed).
 */
export async function writeSnapshotFile(path: string, view: StateView, blocks: SnapshotBlocks, signer: { address: string; keys: KeyPair }, provider: SignatureProvider): Promise<SnapshotHead> {
  const partial = `${path}.partial`;
  const file = await open(partial, 'w');
  try {
    let buffer: string[] = [];
    let size = 0;
    const put = async (text: string): Promise<void> => {
      buffer.push(text);
      size += text.length;
      if (size < WRITE_CHUNK) return;
      await file.write(buffer.join(''));
      buffer = [];
      size = 0;
    };
    // Every field but entries_hash and the signature is known before the first entry.
    await put(JSON.stringify(blocks).slice(0, -1) + ',"entries":[\n');
    const hasher = new EntriesHasher();
    let first = true;
    for await (const [key, value] of view.entries()) {
      const entry = entryJson(key, toHex(value));
      hasher.add(entry);
      await put(first ? entry : ',\n' + entry);
      first = false;
    }
    const head = signSnapshotHead(blocks, hasher.digest(), signer, provider);
    await put(`\n],"entries_hash":${JSON.stringify(head.entries_hash)},"signer":${JSON.stringify(head.signer)},"public_key":${JSON.stringify(head.public_key)},"signature":${JSON.stringify(head.signature)}}\n`);
    await file.write(buffer.join(''));
    await file.sync();
    await file.close();
    await rename(partial, path);
    return head;
  } catch (e) {
    await file.close().catch(() => undefined);
    await rm(partial, { force: true });
    throw e;
  }
}
