import { open, rename, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { LastSignedGuard, type LastSignedState } from '../consensus/last-signed-guard.js';
import { LocalPrivValidator } from '../consensus/priv-validator.js';
import type { KeyPair, SignatureProvider } from '../crypto/provider.js';

/**
 * The node's validator key behind the guard persisted in its data directory. Whichever engine
 * signs (the one-validator producer, then the BFT replica) opens it here, so what one signed
 * binds the other.
 */
export async function openPrivValidator(o: {
  readonly dataDir: string;
  readonly address: string;
  readonly keyPair: KeyPair;
  readonly provider: SignatureProvider;
  readonly signAsync?: (message: Uint8Array, secretKey: Uint8Array) => Promise<Uint8Array>;
}): Promise<LocalPrivValidator> {
  const path = join(o.dataDir, 'priv_validator_state.json');
  const saved = await readSignState(path);
  return new LocalPrivValidator({
    address: o.address,
    keyPair: o.keyPair,
    provider: o.provider,
    guard: saved === undefined ? new LastSignedGuard() : LastSignedGuard.fromJSON(saved),
    persist: (state) => writeSignState(path, state),
    ...(o.signAsync ? { signAsync: o.signAsync } : {}),
  });
}

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
