import { open, rename, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { LastSignedGuard, type LastSignedState } from '../consensus/last-signed-guard.js';
import { LocalPrivValidator } from '../consensus/priv-validator.js';
import { toHex } from '../codec/hex.js';
import { sha3 } from '../crypto/hash.js';
import type { KeyPair, SignatureProvider } from '../crypto/provider.js';

/** The file's name in the data directory. */
export const SIGN_STATE_FILE = 'priv_validator_state.json';

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
  const path = join(o.dataDir, SIGN_STATE_FILE);
  const saved = await readSignState(path);
  return new LocalPrivValidator({
    address: o.address,
    keyPair: o.keyPair,
    provider: o.provider,
    guard: saved === undefined ? new LastSignedGuard() : guardOf(saved, path),
    persist: (state) => writeSignState(path, state),
    ...(o.signAsync ? { signAsync: o.signAsync } : {}),
  });
}

/**
 * The validator's last-signed record on disk. Written to a temporary file, fsynced, renamed over
 * the old one and the directory fsynced: after a crash the file holds either the previous record
 * or the new one, and the new one is on disk before the signature leaves the process.
 *
 * The record carries `sha3`, the SHA3-256 of its JSON without that field: a disk that flips a bit
 * could otherwise turn a round 1 into a round 0 or a height 12 into 10 and still parse, and the
 * guard would then sign again what it had signed (issue 39, disk faults). A record without the
 * field (written before it existed) is still read, once: the next signature rewrites it with one.
 */
export async function writeSignState(path: string, state: LastSignedState): Promise<void> {
  const tmp = `${path}.tmp`;
  const fh = await open(tmp, 'w', 0o600);
  try {
    await fh.writeFile(signStateText(state));
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

/** The file's text: the state's JSON with its checksum as the last field. */
export function signStateText(state: LastSignedState): string {
  const body = JSON.stringify(state);
  return `${body.slice(0, -1)},"sha3":"${toHex(sha3(body))}"}`;
}

const STATE_KEYS = ['version', 'height', 'entries'];

/** The record read from `path`, checked against its checksum; undefined when there is no file. */
export async function readSignState(path: string): Promise<unknown | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw refusal(path, (e as Error).message);
  }
  return parseSignState(text, path);
}

/** `text` as the record it holds; throws naming `path` on anything but a whole, unaltered record. */
export function parseSignState(text: string, path: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch (e) {
    throw refusal(path, `not JSON (${(e as Error).message}): the file is cut short or damaged`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw refusal(path, 'not a JSON object');
  const { sha3: sum, ...state } = parsed as Record<string, unknown>;
  const keys = Object.keys(state);
  if (keys.length !== STATE_KEYS.length || !STATE_KEYS.every((k, i) => keys[i] === k)) throw refusal(path, `fields ${keys.join(', ')}, expected ${STATE_KEYS.join(', ')}${sum === undefined ? '' : ', sha3'}`);
  if (sum !== undefined && sum !== toHex(sha3(JSON.stringify(state)))) throw refusal(path, 'its sha3 does not match its contents: the file is damaged');
  return state;
}

/** The guard a record's text restores; throws naming `path` when the text is not a whole, unaltered record. */
export function guardFromText(text: string, path: string): LastSignedGuard {
  return guardOf(parseSignState(text, path), path);
}

function guardOf(saved: unknown, path: string): LastSignedGuard {
  try {
    return LastSignedGuard.fromJSON(saved);
  } catch (e) {
    throw refusal(path, (e as Error).message);
  }
}

/**
 * Why the node will not start. A validator that cannot tell what it signed last must not sign:
 * starting afresh could sign a second vote at a height it already voted at (a double sign).
 */
function refusal(path: string, why: string): Error {
  return new Error(`cannot read the last-signed record ${path}: ${why}; refusing to sign without it (restore the file from a backup; delete it only if this key has not signed at the chain's current height)`);
}
