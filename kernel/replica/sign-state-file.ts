import { open, rename, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { LastSignedState } from '../consensus/last-signed-guard.js';

/**
 * The validator's last-signed record on disk. Written to a temporary file, fsynced, renamed over
 * the old one and the directory fsynced: after a crash the file holds either the previous record
 * or the new one, and the new one is on disk before the signature leaves the process.
 */
export async function writeSignState(path: string, state: LastSignedState): Promise<void> {
  const tmp = `${path}.tmp`;
  const fh = await open(tmp, 'w', 0o600);
  try {
    await fh.writeFile(JSON.stringify(state));
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, path);
  const dir = await open(dirname(path), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

export async function readSignState(path: string): Promise<unknown | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as unknown;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`cannot read the last-signed record ${path}: ${(e as Error).message}; refusing to sign without it`);
  }
}
