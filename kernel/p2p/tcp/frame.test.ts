import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chacha20poly1305 } from '@noble/ciphers/chacha.js';
import { SessionCipher } from './frame.js';
import { AEAD_TAG_BYTES, FRAME_HEADER_BYTES } from './wire.js';

const keyA = new Uint8Array(32).fill(7);
const keyB = new Uint8Array(32).fill(9);

function nonce(counter: number): Uint8Array {
  const n = new Uint8Array(12);
  new DataView(n.buffer).setUint32(8, counter);
  return n;
}

test('frames are RFC 8439 ChaCha20-Poly1305, byte-identical to an independent implementation', () => {
  const c = new SessionCipher(Uint8Array.from(keyA), Uint8Array.from(keyB), 1000);
  for (let i = 0; i < 3; i++) {
    const plain = new TextEncoder().encode(`frame ${i} `.repeat(100 * (i + 1)));
    const wire = c.seal(plain);
    const header = wire.subarray(0, FRAME_HEADER_BYTES);
    const expected = chacha20poly1305(keyA, nonce(i), header).encrypt(plain);
    assert.deepEqual(wire.subarray(FRAME_HEADER_BYTES), expected, `frame ${i}`);
  }
});

test('open accepts what the peer sealed, in order, and refuses tampering or reordering', () => {
  const sender = new SessionCipher(Uint8Array.from(keyA), Uint8Array.from(keyB), 1000);
  const receiver = new SessionCipher(Uint8Array.from(keyB), Uint8Array.from(keyA), 1000);
  const frames = [1, 2, 3].map((i) => sender.seal(new TextEncoder().encode(`message ${i}`)));
  const asFrame = (w: Uint8Array) => ({ header: w.subarray(0, FRAME_HEADER_BYTES), body: w.subarray(FRAME_HEADER_BYTES) });
  assert.equal(new TextDecoder().decode(receiver.open(asFrame(frames[0]!))!), 'message 1');
  const tampered = Uint8Array.from(frames[1]!);
  tampered[FRAME_HEADER_BYTES + 2]! ^= 1;
  assert.equal(receiver.open(asFrame(tampered)), null);
  // The nonce moved on with the tampered frame, so the genuine one no longer opens either.
  assert.equal(receiver.open(asFrame(frames[1]!)), null);
  const fresh = new SessionCipher(Uint8Array.from(keyB), Uint8Array.from(keyA), 1000);
  assert.equal(fresh.open(asFrame(frames[1]!)), null, 'out of order');
  assert.equal(fresh.open({ header: new Uint8Array(4), body: new Uint8Array(AEAD_TAG_BYTES - 1) }), null);
});
