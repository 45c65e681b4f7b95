import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sha3 } from '../../crypto/hash.js';
import { toHex } from '../../codec/hex.js';
import { encodePlainFrame, FrameDecoder, FrameSizeError, NonceExhaustedError, SessionCipher } from './frame.js';
import type { Frame } from './frame.js';
import { backoffDelay, DecayingScore, mulberry32, TokenBucket } from './limits.js';
import { testNodeKey } from './testkit.js';
import {
  decodeHello,
  decodeKex,
  decodePex,
  deriveSessionKeys,
  encodeHello,
  encodeKex,
  encodePex,
  ephemeralKemKeyPair,
  kemDecapsulate,
  kemEncapsulate,
  nodeIdFromPublicKey,
  P2pProtocolError,
  parseAddress,
  PROTOCOL_VERSION,
  transcriptHash,
} from './wire.js';
import type { Hello } from './wire.js';

function drain(d: FrameDecoder): Frame[] {
  const out: Frame[] = [];
  for (let f = d.next(); f !== null; f = d.next()) out.push(f);
  return out;
}

describe('FrameDecoder', () => {
  it('reassembles frames fed one byte at a time', () => {
    const bodies = [new Uint8Array([1]), new Uint8Array(300).fill(7), new Uint8Array([9, 8, 7])];
    const wire = Buffer.concat(bodies.map((b) => encodePlainFrame(b)));
    const d = new FrameDecoder(1024);
    const got: Frame[] = [];
    for (const byte of wire) {
      d.push(Uint8Array.of(byte));
      got.push(...drain(d));
    }
    assert.deepEqual(
      got.map((f) => [...f.body]),
      bodies.map((b) => [...b]),
    );
  });

  it('splits several frames delivered in one chunk, and keeps a partial tail', () => {
    const wire = Buffer.concat([encodePlainFrame(Uint8Array.of(1, 2)), encodePlainFrame(Uint8Array.of(3)), encodePlainFrame(Uint8Array.of(4, 5, 6))]);
    const d = new FrameDecoder(1024);
    d.push(wire.subarray(0, wire.length - 2));
    assert.equal(drain(d).length, 2);
    d.push(wire.subarray(wire.length - 2));
    assert.deepEqual([...drain(d)[0]!.body], [4, 5, 6]);
  });

  it('rejects an oversize header before buffering the body, and empty frames', () => {
    const d = new FrameDecoder(100);
    d.push(Uint8Array.of(0, 0, 0, 101));
    assert.throws(() => d.next(), FrameSizeError);
    const e = new FrameDecoder(100);
    e.push(Uint8Array.of(0, 0, 0, 0));
    assert.throws(() => e.next(), /empty frame/);
  });
});

describe('SessionCipher', () => {
  const k1 = new Uint8Array(32).fill(1);
  const k2 = new Uint8Array(32).fill(2);
  const frameOf = (wire: Uint8Array): Frame => ({ header: wire.subarray(0, 4), body: wire.subarray(4) });

  it('round-trips with matching directional keys and never repeats a nonce', () => {
    const a = new SessionCipher(k1.slice(), k2.slice(), 1000);
    const b = new SessionCipher(k2.slice(), k1.slice(), 1000);
    const pt = new TextEncoder().encode('same plaintext');
    const w1 = a.seal(pt);
    const w2 = a.seal(pt);
    assert.notDeepEqual(w1, w2, 'counter nonce must change the ciphertext');
    assert.deepEqual(b.open(frameOf(w1)), pt);
    assert.deepEqual(b.open(frameOf(w2)), pt);
  });

  it('fails on a flipped byte, a replayed frame, or a modified length header', () => {
    const a = new SessionCipher(k1.slice(), k2.slice(), 1000);
    const pt = Uint8Array.of(1, 2, 3);
    const w = a.seal(pt);
    const tampered = w.slice();
    tampered[6] = tampered[6]! ^ 1;
    assert.equal(new SessionCipher(k2.slice(), k1.slice(), 1000).open(frameOf(tampered)), null);
    const b = new SessionCipher(k2.slice(), k1.slice(), 1000);
    assert.deepEqual(b.open(frameOf(w)), pt);
    assert.equal(b.open(frameOf(w)), null, 'replay is under the next nonce and must fail');
    const badHeader = w.slice();
    badHeader[0] = 1;
    assert.equal(new SessionCipher(k2.slice(), k1.slice(), 1000).open(frameOf(badHeader)), null);
  });

  it('refuses to seal past the frame limit instead of wrapping', () => {
    const a = new SessionCipher(k1.slice(), k2.slice(), 2);
    a.seal(Uint8Array.of(1));
    a.seal(Uint8Array.of(2));
    assert.throws(() => a.seal(Uint8Array.of(3)), NonceExhaustedError);
  });
});

describe('handshake wire', () => {
  const kp = testNodeKey(1);
  const kem = ephemeralKemKeyPair();
  const hello: Hello = {
    version: PROTOCOL_VERSION,
    role: 'initiator',
    chainId: 'chain-x',
    genesisHash: new Uint8Array(32).fill(9),
    listenAddress: '127.0.0.1:4000',
    nodePublicKey: kp.publicKey,
    kemPublicKey: kem.publicKey,
  };

  it('node id is the first 20 bytes of SHA3-256(public key) in hex', () => {
    assert.equal(nodeIdFromPublicKey(kp.publicKey), toHex(sha3(kp.publicKey)).slice(0, 40));
  });

  it('hello round-trips and malformed hellos are protocol errors', () => {
    const enc = encodeHello(hello);
    assert.deepEqual(decodeHello(enc), hello);
    assert.throws(() => decodeHello(enc.subarray(0, enc.length - 1)), P2pProtocolError);
    assert.throws(() => decodeHello(Buffer.concat([enc, Uint8Array.of(0)])), P2pProtocolError);
    const badMagic = enc.slice();
    badMagic[1] = 0;
    assert.throws(() => decodeHello(badMagic), /bad magic/);
  });

  it('both KEM directions plus the transcript give both sides the same directional keys', () => {
    const iKem = ephemeralKemKeyPair();
    const rKem = ephemeralKemKeyPair();
    const iEnc = kemEncapsulate(rKem.publicKey);
    const rEnc = kemEncapsulate(iKem.publicKey);
    const hi = encodeHello({ ...hello, kemPublicKey: iKem.publicKey });
    const hr = encodeHello({ ...hello, role: 'responder', kemPublicKey: rKem.publicKey });
    const th = transcriptHash(hi, hr, decodeKex(encodeKex(iEnc.cipherText)), rEnc.cipherText);
    const initiator = deriveSessionKeys(iEnc.sharedSecret, kemDecapsulate(rEnc.cipherText, iKem.secretKey), th);
    const responder = deriveSessionKeys(kemDecapsulate(iEnc.cipherText, rKem.secretKey), rEnc.sharedSecret, th);
    assert.deepEqual(initiator, responder);
    assert.notDeepEqual(initiator.initiatorToResponder, initiator.responderToInitiator);
    const otherTh = transcriptHash(hr, hi, iEnc.cipherText, rEnc.cipherText);
    assert.notDeepEqual(deriveSessionKeys(iEnc.sharedSecret, rEnc.sharedSecret, otherTh), initiator);
  });

  it('peer exchange entries round-trip', () => {
    const entries = [
      { id: 'ab'.repeat(20), address: '10.0.0.1:26656' },
      { id: 'chain:0123456789abcde.human', address: '[::1]:9000' },
    ];
    assert.deepEqual(decodePex(encodePex(entries)), entries);
    assert.throws(() => decodePex(Uint8Array.of(0, 1, 2)), P2pProtocolError);
  });

  it('parses dialable addresses only', () => {
    assert.deepEqual(parseAddress('127.0.0.1:80'), { host: '127.0.0.1', port: 80 });
    assert.deepEqual(parseAddress('[::1]:80'), { host: '::1', port: 80 });
    assert.equal(parseAddress('127.0.0.1'), null);
    assert.equal(parseAddress('h:0'), null);
    assert.equal(parseAddress('h:70000'), null);
    assert.equal(parseAddress(''), null);
  });
});

describe('limits', () => {
  it('token bucket allows the burst, then refills at the configured rate', () => {
    const b = new TokenBucket(10, 5, 0);
    for (let i = 0; i < 5; i++) assert.ok(b.take(1, 0));
    assert.equal(b.take(1, 0), false);
    assert.equal(b.take(1, 50), false);
    assert.ok(b.take(1, 100));
    assert.ok(b.take(4, 10_000));
    assert.equal(b.take(6, 20_000), false, 'never more than the burst');
  });

  it('scores decay linearly and never go negative', () => {
    const s = new DecayingScore(2, 0);
    assert.equal(s.add(10, 0), 10);
    assert.equal(s.value(2000), 6);
    assert.equal(s.value(100_000), 0);
  });

  it('backoff grows exponentially with bounded jitter and is capped', () => {
    const rng = mulberry32(42);
    for (let attempt = 0; attempt < 40; attempt++) {
      const ceiling = Math.min(1000, 50 * 2 ** attempt);
      const d = backoffDelay(attempt, 50, 1000, rng);
      assert.ok(d >= ceiling / 2 && d <= ceiling, `attempt ${attempt}: ${d}`);
    }
    const a = mulberry32(7);
    const b = mulberry32(7);
    assert.deepEqual([a(), a(), a()], [b(), b(), b()]);
  });
});
