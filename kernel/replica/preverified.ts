import { bytesEqual } from '../consensus/bytes.js';
import type { SignatureProvider } from '../crypto/provider.js';

type AsyncVerify = (signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array) => Promise<boolean>;

/**
 * Consensus messages verified off the event loop before the state machine sees them. The
 * Tendermint machine checks signatures synchronously (it is pure and deterministic); the replica
 * verifies a peer's vote, proposal or commit on a worker as it arrives, and the machine's provider
 * then answers from this memo when the exact same signature, message and key verified before.
 * Anything not pre-verified is checked in-thread as before, so the memo only saves time.
 */
export class PreverifiedSignatures {
  private readonly verified = new WeakMap<Uint8Array, { message: Uint8Array; publicKey: Uint8Array }>();
  readonly stats = { preverified: 0, hits: 0 };

  constructor(private readonly verifyAsync: AsyncVerify) {}

  /** Verifies on the worker and remembers a success; answers whether it verified, never rejects. */
  async check(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): Promise<boolean> {
    try {
      if (await this.verifyAsync(signature, message, publicKey)) {
        this.verified.set(signature, { message, publicKey });
        this.stats.preverified++;
        return true;
      }
    } catch {
      // the machine verifies it in-thread and decides
    }
    return false;
  }

  /** `base` with a verify that consults the memo first (keyed by the signature's bytes object). */
  provider(base: SignatureProvider): SignatureProvider {
    return {
      name: base.name,
      keygen: (seed) => base.keygen(seed),
      sign: (message, secretKey) => base.sign(message, secretKey),
      verify: (signature, message, publicKey) => {
        const known = this.verified.get(signature);
        if (known && bytesEqual(known.message, message) && bytesEqual(known.publicKey, publicKey)) {
          this.stats.hits++;
          return true;
        }
        return base.verify(signature, message, publicKey);
      },
    };
  }
}
