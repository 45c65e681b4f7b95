/**
 * Wire formats and handshake cryptography of the TCP transport (see PROTOCOL.md in this folder).
 * Everything here is pure (no sockets, no timers) so the tests can build a man-in-the-middle out of
 * exactly the same pieces an honest node uses.
 */
import { ml_kem768 } from '@noble/post-quantum/ml-kem.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha3_256 } from '@noble/hashes/sha3.js';
import { utf8Bytes } from '../../codec/utf8.js';
import { sha3Concat } from '../../crypto/hash.js';
import { NODE_ID_BYTES, nodeIdOf } from '../../crypto/node-id.js';
import { ML_DSA65_PUBLIC_KEY_BYTES, ML_DSA65_SIGNATURE_BYTES } from '../../crypto/provider.js';

/** 2: the hello carries the genesis hash after the chain id (decisions.md §83). */
export const PROTOCOL_VERSION = 2;
export const GENESIS_HASH_BYTES = 32;
/** First bytes of every hello: lets a node tell a stray client (HTTP, a port scanner) from a peer. */
export const HELLO_MAGIC = utf8Bytes('PQP2');
export { NODE_ID_BYTES };
export const KEM_PUBLIC_KEY_BYTES = 1184;
export const KEM_SECRET_KEY_BYTES = 2400;
export const KEM_CIPHERTEXT_BYTES = 1088;
export const AEAD_TAG_BYTES = 16;
export const FRAME_HEADER_BYTES = 4;
/** Handshake frames are a few KiB; a small cap keeps unauthenticated peers from making us allocate. */
export const HANDSHAKE_MAX_FRAME_BYTES = 16 * 1024;
export const MAX_CHAIN_ID_BYTES = 128;
export const MAX_ADDRESS_BYTES = 255;
export const MAX_REJECT_REASON_BYTES = 200;
export const MAX_PEX_ENTRIES = 64;
/** Peer ids travel as strings in peer exchange (they may be validator addresses, not only hex). */
export const MAX_PEER_ID_BYTES = 128;

/** Plaintext frame types, only legal before the session keys exist. */
export const HandshakeType = { Hello: 0x01, Kex: 0x02, Reject: 0x03 } as const;
/** Types of sealed frames: the first plaintext byte inside the AEAD. */
export const SealedType = { Auth: 0x10, App: 0x11, Pex: 0x12, Ping: 0x13, Pong: 0x14, Bye: 0x15 } as const;

export type Role = 'initiator' | 'responder';

const ROLE_BYTE: Record<Role, number> = { initiator: 0, responder: 1 };

const TRANSCRIPT_LABEL = utf8Bytes('pq-chain/p2p/v1/transcript');
const AUTH_LABEL = utf8Bytes('pq-chain/p2p/v1/auth');
const KEY_I2R_LABEL = utf8Bytes('pq-chain/p2p/v1/key/initiator->responder');
const KEY_R2I_LABEL = utf8Bytes('pq-chain/p2p/v1/key/responder->initiator');

/** A peer broke the protocol; `reason` is what gets logged and reported to the application. */
export class P2pProtocolError extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(reason);
    this.name = 'P2pProtocolError';
    this.reason = reason;
  }
}

/**
 * Default node id: the first 20 bytes of SHA3-256(ML-DSA-65 public key), lowercase hex without
 * `0x` (decisions.md §82). A transport may be given another key-binding function (e.g. the
 * validator address) through `TcpTransportOptions.peerIdOf`.
 */
export const nodeIdFromPublicKey = nodeIdOf;

export function u32be(n: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, n >>> 0, false);
  return out;
}

export function readU32be(bytes: Uint8Array, at = 0): number {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(at, false);
}

function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  let len = 0;
  for (const p of parts) len += p.length;
  const out = new Uint8Array(len);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Bounds-checked cursor: every decode error becomes a P2pProtocolError instead of a RangeError. */
class ByteReader {
  private at = 0;
  constructor(private readonly buf: Uint8Array, private readonly what: string) {}
  u8(): number {
    return this.bytes(1)[0]!;
  }
  u16(): number {
    const b = this.bytes(2);
    return (b[0]! << 8) | b[1]!;
  }
  bytes(n: number): Uint8Array {
    if (this.at + n > this.buf.length) throw new P2pProtocolError(`truncated ${this.what}`);
    const out = this.buf.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }
  utf8(n: number): string {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(this.bytes(n));
    } catch (e) {
      if (e instanceof P2pProtocolError) throw e;
      throw new P2pProtocolError(`invalid utf-8 in ${this.what}`);
    }
  }
  end(): void {
    if (this.at !== this.buf.length) throw new P2pProtocolError(`trailing bytes in ${this.what}`);
  }
}

function boundedUtf8(text: string, max: number, what: string): Uint8Array {
  const b = utf8Bytes(text);
  if (b.length > max) throw new RangeError(`${what} longer than ${max} bytes`);
  return b;
}

// ---------------------------------------------------------------------------------------------
// Handshake messages

export interface Hello {
  readonly version: number;
  readonly role: Role;
  readonly chainId: string;
  /** SHA3-256 of the canonical genesis document: two nodes of one chain id but another genesis never connect. */
  readonly genesisHash: Uint8Array;
  /** `host:port` other nodes can dial, or '' for a node that does not accept connections. */
  readonly listenAddress: string;
  readonly nodePublicKey: Uint8Array;
  readonly kemPublicKey: Uint8Array;
}

/** Hello frame body: type, magic, version, role, chain id, genesis hash, listen address, node key, KEM key. */
export function encodeHello(h: Hello): Uint8Array {
  if (h.nodePublicKey.length !== ML_DSA65_PUBLIC_KEY_BYTES) throw new RangeError('node public key must be ML-DSA-65');
  if (h.kemPublicKey.length !== KEM_PUBLIC_KEY_BYTES) throw new RangeError('KEM key must be ML-KEM-768');
  if (h.genesisHash.length !== GENESIS_HASH_BYTES) throw new RangeError('genesis hash must be 32 bytes');
  const chain = boundedUtf8(h.chainId, MAX_CHAIN_ID_BYTES, 'chain id');
  const addr = boundedUtf8(h.listenAddress, MAX_ADDRESS_BYTES, 'listen address');
  return concatBytes([
    Uint8Array.of(HandshakeType.Hello),
    HELLO_MAGIC,
    Uint8Array.of(h.version >> 8, h.version & 0xff, ROLE_BYTE[h.role], chain.length),
    chain,
    h.genesisHash,
    Uint8Array.of(addr.length),
    addr,
    h.nodePublicKey,
    h.kemPublicKey,
  ]);
}

export function decodeHello(body: Uint8Array): Hello {
  const r = new ByteReader(body, 'hello');
  if (r.u8() !== HandshakeType.Hello) throw new P2pProtocolError('expected hello');
  const magic = r.bytes(HELLO_MAGIC.length);
  if (!magic.every((b, i) => b === HELLO_MAGIC[i])) throw new P2pProtocolError('not a pq-chain peer (bad magic)');
  const version = r.u16();
  const roleByte = r.u8();
  if (roleByte !== 0 && roleByte !== 1) throw new P2pProtocolError('invalid role in hello');
  const chainId = r.utf8(r.u8());
  const genesisHash = r.bytes(GENESIS_HASH_BYTES).slice();
  const listenAddress = r.utf8(r.u8());
  const nodePublicKey = r.bytes(ML_DSA65_PUBLIC_KEY_BYTES).slice();
  const kemPublicKey = r.bytes(KEM_PUBLIC_KEY_BYTES).slice();
  r.end();
  return { version, role: roleByte === 0 ? 'initiator' : 'responder', chainId, genesisHash, listenAddress, nodePublicKey, kemPublicKey };
}

export function encodeKex(cipherText: Uint8Array): Uint8Array {
  if (cipherText.length !== KEM_CIPHERTEXT_BYTES) throw new RangeError('KEM ciphertext must be ML-KEM-768');
  return concatBytes([Uint8Array.of(HandshakeType.Kex), cipherText]);
}

export function decodeKex(body: Uint8Array): Uint8Array {
  const r = new ByteReader(body, 'key exchange');
  if (r.u8() !== HandshakeType.Kex) throw new P2pProtocolError('expected key exchange');
  const ct = r.bytes(KEM_CIPHERTEXT_BYTES).slice();
  r.end();
  return ct;
}

export function encodeReject(reason: string): Uint8Array {
  const b = utf8Bytes(reason);
  return concatBytes([Uint8Array.of(HandshakeType.Reject), b.subarray(0, MAX_REJECT_REASON_BYTES)]);
}

export function decodeReason(bytes: Uint8Array): string {
  // Reasons are informational only (and unauthenticated before AUTH); never let them break logging.
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes.subarray(0, MAX_REJECT_REASON_BYTES)).replace(/[^\x20-\x7e]/g, '?');
}

// ---------------------------------------------------------------------------------------------
// Handshake cryptography

export interface KemKeyPair {
  readonly publicKey: Uint8Array;
  readonly secretKey: Uint8Array;
}

/** A fresh ML-KEM-768 key pair per connection: gives forward secrecy once it is wiped. */
export function ephemeralKemKeyPair(): KemKeyPair {
  const { publicKey, secretKey } = ml_kem768.keygen();
  return { publicKey, secretKey };
}

export function kemEncapsulate(peerKemPublicKey: Uint8Array): { cipherText: Uint8Array; sharedSecret: Uint8Array } {
  try {
    const { cipherText, sharedSecret } = ml_kem768.encapsulate(peerKemPublicKey);
    return { cipherText, sharedSecret };
  } catch {
    // FIPS 203 encapsulation-key check (coefficients < q) fails on a malformed key.
    throw new P2pProtocolError('invalid ML-KEM encapsulation key');
  }
}

export function kemDecapsulate(cipherText: Uint8Array, secretKey: Uint8Array): Uint8Array {
  try {
    return ml_kem768.decapsulate(cipherText, secretKey);
  } catch {
    throw new P2pProtocolError('invalid ML-KEM ciphertext');
  }
}

/**
 * The transcript hash both sides sign and key the session with. It covers both hellos exactly as
 * sent (so version, chain id, both node keys, both listen addresses and both KEM keys) and both KEM
 * ciphertexts, always in initiator-then-responder order so both sides compute the same value.
 */
export function transcriptHash(
  initiatorHello: Uint8Array,
  responderHello: Uint8Array,
  initiatorCipherText: Uint8Array,
  responderCipherText: Uint8Array,
): Uint8Array {
  return sha3Concat(
    TRANSCRIPT_LABEL,
    u32be(initiatorHello.length),
    initiatorHello,
    u32be(responderHello.length),
    responderHello,
    u32be(initiatorCipherText.length),
    initiatorCipherText,
    u32be(responderCipherText.length),
    responderCipherText,
  );
}

/** What each side signs: the role byte stops a signature made as initiator being replayed as responder. */
export function authMessage(signerRole: Role, transcript: Uint8Array): Uint8Array {
  return concatBytes([AUTH_LABEL, Uint8Array.of(ROLE_BYTE[signerRole]), transcript]);
}

export interface SessionKeys {
  readonly initiatorToResponder: Uint8Array;
  readonly responderToInitiator: Uint8Array;
}

/**
 * HKDF-SHA3-256 with both KEM secrets as input keying material and the transcript hash as salt:
 * a session key is fresh if either side's KEM randomness is, and it is bound to this exact
 * transcript (and so to both identities).
 */
export function deriveSessionKeys(
  initiatorSharedSecret: Uint8Array,
  responderSharedSecret: Uint8Array,
  transcript: Uint8Array,
): SessionKeys {
  const ikm = concatBytes([initiatorSharedSecret, responderSharedSecret]);
  const keys = {
    initiatorToResponder: hkdf(sha3_256, ikm, transcript, KEY_I2R_LABEL, 32),
    responderToInitiator: hkdf(sha3_256, ikm, transcript, KEY_R2I_LABEL, 32),
  };
  ikm.fill(0);
  return keys;
}

// ---------------------------------------------------------------------------------------------
// Peer exchange

export interface PexEntry {
  readonly id: string;
  readonly address: string;
}

export function encodePex(entries: readonly PexEntry[]): Uint8Array {
  const parts: Uint8Array[] = [];
  const list = entries.slice(0, MAX_PEX_ENTRIES);
  parts.push(Uint8Array.of(list.length >> 8, list.length & 0xff));
  for (const e of list) {
    const id = boundedUtf8(e.id, MAX_PEER_ID_BYTES, 'peer id');
    const addr = boundedUtf8(e.address, MAX_ADDRESS_BYTES, 'pex address');
    parts.push(Uint8Array.of(id.length), id, Uint8Array.of(addr.length), addr);
  }
  return concatBytes(parts);
}

export function decodePex(payload: Uint8Array): PexEntry[] {
  const r = new ByteReader(payload, 'peer exchange');
  const n = r.u16();
  if (n > MAX_PEX_ENTRIES) throw new P2pProtocolError('too many peer exchange entries');
  const out: PexEntry[] = [];
  for (let i = 0; i < n; i++) {
    const idLen = r.u8();
    if (idLen === 0 || idLen > MAX_PEER_ID_BYTES) throw new P2pProtocolError('invalid peer id length in peer exchange');
    const id = r.utf8(idLen);
    const address = r.utf8(r.u8());
    out.push({ id, address });
  }
  r.end();
  return out;
}

// ---------------------------------------------------------------------------------------------
// Addresses

/** Parses `host:port` or `[v6]:port`; null when it is not something we would dial. */
export function parseAddress(address: string): { host: string; port: number } | null {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]+)):(\d{1,5})$/.exec(address);
  if (m === null) return null;
  const host = m[1] ?? m[2];
  const port = Number(m[3]);
  if (host === undefined || !Number.isInteger(port) || port < 1 || port > 65535) return null;
  return { host, port };
}

export function formatAddress(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

export const SIGNATURE_BYTES = ML_DSA65_SIGNATURE_BYTES;
export { concatBytes };
