import { bytesEqual } from '../consensus/bytes.js';
import { proposalSignBytes, voteSignBytes, type ConsensusMessage } from '../consensus/index.js';
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

  /** Starts verifying every signature a consensus message carries; null when none can start. */
  checkMessage(msg: ConsensusMessage, chainId: string, keyOf: (address: string) => Uint8Array | undefined): Promise<unknown> | null {
    try {
      if (msg.kind === 'vote') {
        const pk = keyOf(msg.vote.vote.validator);
        return pk ? this.check(msg.vote.signature, voteSignBytes(chainId, msg.vote.vote), pk) : null;
      }
      if (msg.kind === 'proposal') {
        const pk = keyOf(msg.proposal.proposal.proposer);
        return pk ? this.check(msg.proposal.signature, proposalSignBytes(chainId, msg.proposal.proposal), pk) : null;
      }
      return Promise.all(
        msg.certificate.precommits.map((sv) => {
          const pk = keyOf(sv.vote.validator);
          return pk ? this.check(sv.signature, voteSignBytes(chainId, sv.vote), pk) : undefined;
        }),
      );
    } catch {
      return null; // no canonical encoding: the machine rejects it
    }
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
