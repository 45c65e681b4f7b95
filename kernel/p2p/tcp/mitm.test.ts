/**
 * Active attackers between two honest nodes. The proxy here is a full man-in-the-middle: it swaps
 * both ML-KEM keys for its own, decapsulates and re-encapsulates, and therefore really holds the
 * session keys of both legs. The handshake signatures over the transcript are what must stop it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TestContext } from 'node:test';
import { nobleProvider } from '../../crypto/noble-provider.js';
import { encodePlainFrame, SessionCipher } from './frame.js';
import type { Frame } from './frame.js';
import type { TcpTransport } from './tcp-transport.js';
import type { HandshakeFailure } from './types.js';
import { testNode, testNodeKey, TestProxy, waitFor, wireFrame } from './testkit.js';
import type { FrameHook } from './testkit.js';
import {
  authMessage,
  decodeHello,
  decodeKex,
  deriveSessionKeys,
  encodeHello,
  encodeKex,
  ephemeralKemKeyPair,
  kemDecapsulate,
  kemEncapsulate,
  SealedType,
  transcriptHash,
} from './wire.js';

interface MitmStats {
  /** Sealed handshake frames the attacker managed to decrypt (proves it holds the leg keys). */
  decryptedAuthFrames: number;
}

/**
 * 'relay': forwards each side's genuine AUTH signature, re-encrypted for the other leg.
 * 'forge': replaces each AUTH signature by one from the attacker's own ML-DSA key over the exact
 * transcript the victim computed.
 */
function kemSwappingMitm(mode: 'relay' | 'forge', stats: MitmStats): () => { clientToServer: FrameHook; serverToClient: FrameHook } {
  return () => {
    const attacker = testNodeKey(99);
    const kemShownToClient = ephemeralKemKeyPair();
    const kemShownToServer = ephemeralKemKeyPair();
    const s: Record<
      'helloC' | 'helloC2' | 'helloS' | 'helloS2' | 'clientKem' | 'serverKem' | 'ctC' | 'ctC2' | 'ctS' | 'ctS2' | 'ssC' | 'ssC2' | 'ssS' | 'ssS2',
      Uint8Array
    > = {
      helloC: new Uint8Array(0),
      helloC2: new Uint8Array(0),
      helloS: new Uint8Array(0),
      helloS2: new Uint8Array(0),
      clientKem: new Uint8Array(0),
      serverKem: new Uint8Array(0),
      ctC: new Uint8Array(0),
      ctC2: new Uint8Array(0),
      ctS: new Uint8Array(0),
      ctS2: new Uint8Array(0),
      ssC: new Uint8Array(0),
      ssC2: new Uint8Array(0),
      ssS: new Uint8Array(0),
      ssS2: new Uint8Array(0),
    };
    let legs: { client: SessionCipher; server: SessionCipher; th1: Uint8Array; th2: Uint8Array } | undefined;
    const getLegs = (): NonNullable<typeof legs> => {
      if (legs === undefined) {
        // Leg 1: client (initiator) <-> attacker posing as the server.
        const th1 = transcriptHash(s.helloC, s.helloS2, s.ctC, s.ctS2);
        const k1 = deriveSessionKeys(s.ssC, s.ssS2, th1);
        // Leg 2: attacker posing as the client (initiator) <-> server.
        const th2 = transcriptHash(s.helloC2, s.helloS, s.ctC2, s.ctS);
        const k2 = deriveSessionKeys(s.ssC2, s.ssS, th2);
        legs = {
          client: new SessionCipher(k1.responderToInitiator, k1.initiatorToResponder, 1e9),
          server: new SessionCipher(k2.initiatorToResponder, k2.responderToInitiator, 1e9),
          th1,
          th2,
        };
      }
      return legs;
    };
    const relaySealed = (from: SessionCipher, to: SessionCipher, frame: Frame, forgedFor: { role: 'initiator' | 'responder'; th: Uint8Array } | null): Uint8Array[] => {
      let pt = from.open(frame);
      if (pt === null) return [];
      if (pt[0] === SealedType.Auth) {
        stats.decryptedAuthFrames++;
        if (forgedFor !== null) {
          const sig = nobleProvider.sign(authMessage(forgedFor.role, forgedFor.th), attacker.secretKey);
          pt = new Uint8Array([SealedType.Auth, ...sig]);
        }
      }
      return [to.seal(pt)];
    };
    const clientToServer: FrameHook = (f, i) => {
      if (i === 0) {
        s.helloC = f.body;
        const h = decodeHello(f.body);
        s.clientKem = h.kemPublicKey;
        s.helloC2 = encodeHello({ ...h, kemPublicKey: kemShownToServer.publicKey });
        return [encodePlainFrame(s.helloC2)];
      }
      if (i === 1) {
        s.ctC = decodeKex(f.body);
        s.ssC = kemDecapsulate(s.ctC, kemShownToClient.secretKey);
        const e = kemEncapsulate(s.serverKem);
        s.ctC2 = e.cipherText;
        s.ssC2 = e.sharedSecret;
        return [encodePlainFrame(encodeKex(s.ctC2))];
      }
      const l = getLegs();
      return relaySealed(l.client, l.server, f, mode === 'forge' && i === 2 ? { role: 'initiator', th: l.th2 } : null);
    };
    const serverToClient: FrameHook = (f, i) => {
      if (i === 0) {
        s.helloS = f.body;
        const h = decodeHello(f.body);
        s.serverKem = h.kemPublicKey;
        s.helloS2 = encodeHello({ ...h, kemPublicKey: kemShownToClient.publicKey });
        return [encodePlainFrame(s.helloS2)];
      }
      if (i === 1) {
        s.ctS = decodeKex(f.body);
        s.ssS = kemDecapsulate(s.ctS, kemShownToServer.secretKey);
        const e = kemEncapsulate(s.clientKem);
        s.ctS2 = e.cipherText;
        s.ssS2 = e.sharedSecret;
        return [encodePlainFrame(encodeKex(s.ctS2))];
      }
      const l = getLegs();
      return relaySealed(l.server, l.client, f, mode === 'forge' && i === 2 ? { role: 'responder', th: l.th1 } : null);
    };
    return { clientToServer, serverToClient };
  };
}

/** Starts B behind the proxy and A dialing the proxy; resolves with the first failure on each side. */
async function attack(
  t: TestContext,
  session: () => { clientToServer?: FrameHook; serverToClient?: FrameHook },
): Promise<{ a: TcpTransport; b: TcpTransport; fa: HandshakeFailure; fb: HandshakeFailure; connected: () => boolean }> {
  const b = testNode(2);
  t.after(() => b.stop());
  await b.start();
  const proxy = new TestProxy({ targetPort: b.port, session });
  await proxy.start();
  t.after(() => proxy.close());
  const a = testNode(1, { seeds: [proxy.address] });
  t.after(() => a.stop());
  let connected = false;
  a.onPeerConnected(() => (connected = true));
  b.onPeerConnected(() => (connected = true));
  const failures = Promise.all([
    waitFor<HandshakeFailure>((res) => a.onHandshakeFailed(res), 'failure at a'),
    waitFor<HandshakeFailure>((res) => b.onHandshakeFailed(res), 'failure at b'),
  ]);
  await a.start();
  const [fa, fb] = await failures;
  return { a, b, fa, fb, connected: () => connected };
}

// When one side aborts, the proxy tears down the other leg; the slower side may see that first.
const SIGNATURE_OR_TEARDOWN = /^(bad handshake signature|connection closed by peer)$/;

describe('TcpTransport against an active man-in-the-middle', () => {
  it('refuses a MITM that swaps the ML-KEM keys, even though it holds both session keys', async (t) => {
    const stats: MitmStats = { decryptedAuthFrames: 0 };
    const { a, b, fa, fb, connected } = await attack(t, kemSwappingMitm('relay', stats));
    assert.ok(stats.decryptedAuthFrames >= 1, 'the attacker really decrypted the handshake');
    assert.match(fa.reason, SIGNATURE_OR_TEARDOWN);
    assert.match(fb.reason, SIGNATURE_OR_TEARDOWN);
    assert.ok([fa.reason, fb.reason].includes('bad handshake signature'));
    assert.equal(fb.claimedPeerId, a.selfId);
    assert.equal(connected(), false);
    assert.deepEqual([a.peers(), b.peers()], [[], []]);
  });

  it('refuses a MITM that forges the handshake signature with its own key', async (t) => {
    const stats: MitmStats = { decryptedAuthFrames: 0 };
    const { a, b, fa, fb, connected } = await attack(t, kemSwappingMitm('forge', stats));
    assert.ok(stats.decryptedAuthFrames >= 1);
    assert.match(fa.reason, SIGNATURE_OR_TEARDOWN);
    assert.match(fb.reason, SIGNATURE_OR_TEARDOWN);
    assert.ok([fa.reason, fb.reason].includes('bad handshake signature'));
    assert.equal(connected(), false);
    assert.deepEqual([a.peers(), b.peers()], [[], []]);
  });

  it('refuses a hello modified in transit (signed listen address rewritten)', async (t) => {
    const session = (): { serverToClient: FrameHook } => ({
      serverToClient: (f, i) => {
        if (i !== 0) return [wireFrame(f)];
        const h = decodeHello(f.body);
        return [encodePlainFrame(encodeHello({ ...h, listenAddress: '203.0.113.66:26656' }))];
      },
    });
    const { fa, fb, connected } = await attack(t, session);
    const mismatch = /^(handshake authentication failed: transcript mismatch \(tampering or MITM\)|connection closed by peer)$/;
    assert.match(fa.reason, mismatch);
    assert.match(fb.reason, mismatch);
    assert.ok([fa.reason, fb.reason].some((r) => r.startsWith('handshake authentication failed')));
    assert.equal(connected(), false);
  });
});
