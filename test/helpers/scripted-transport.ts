import type { ConsensusMessage } from '../../kernel/consensus/index.js';
import type { MessageHandler, Transport } from '../../kernel/p2p/transport.js';
import { envelope, openEnvelope, TAG_CONSENSUS } from '../../kernel/replica/envelope.js';

/**
 * A transport a test drives, for one node under test: it delivers what the test injects and
 * reports what the node sends (consensus broadcasts decoded, direct sends as raw envelopes).
 */
export class ScriptedTransport implements Transport {
  private handler: MessageHandler = () => undefined;
  private waiters: { match: (m: ConsensusMessage) => boolean; resolve: (m: ConsensusMessage) => void }[] = [];
  /** Every direct send, in order. */
  readonly sent: { peer: string; tag: number; body: Uint8Array }[] = [];

  constructor(
    readonly selfId: string,
    private readonly peerIds: readonly string[],
    private readonly decode: (body: Uint8Array) => ConsensusMessage | null,
  ) {}

  broadcast(msg: Uint8Array): void {
    const env = openEnvelope(msg);
    if (!env || env.tag !== TAG_CONSENSUS) return;
    const m = this.decode(env.body);
    if (!m) return;
    this.waiters = this.waiters.filter((w) => !(w.match(m) && (w.resolve(m), true)));
  }

  send(peer: string, msg: Uint8Array): void {
    const env = openEnvelope(msg);
    if (env) this.sent.push({ peer, tag: env.tag, body: env.body });
  }

  onMessage(cb: MessageHandler): void {
    this.handler = cb;
  }

  peers(): string[] {
    return this.peerIds.filter((p) => p !== this.selfId);
  }

  /** Hands the node a message as if `from` had sent it; resolves once the node's handler returns. */
  async inject(from: string, tag: number, payload: Uint8Array | unknown): Promise<void> {
    await this.handler(from, envelope(tag, payload));
  }

  deliver(from: string, m: ConsensusMessage, encode: (m: ConsensusMessage) => Uint8Array): void {
    void this.handler(from, envelope(TAG_CONSENSUS, encode(m)));
  }

  /** Resolves with the first consensus broadcast that matches (register before the input that causes it). */
  next(match: (m: ConsensusMessage) => boolean): Promise<ConsensusMessage> {
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }
}
