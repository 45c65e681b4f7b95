import type { MessageHandler, Transport } from '../../kernel/p2p/transport.js';

/**
 * In-process links between replicas on real timers: every message is delivered on a later turn
 * of the event loop, to every node attached at that moment. Nodes can be watched (every message
 * a node sends) and attached later (a node that joins the network).
 */
export class LoopbackHub {
  private readonly nodes = new Map<string, { handler: MessageHandler }>();
  /** Every message sent, with its sender, in order. */
  readonly sent: { from: string; bytes: Uint8Array }[] = [];

  transport(selfId: string): Transport {
    const node = { handler: ((): void => undefined) as MessageHandler };
    this.nodes.set(selfId, node);
    return {
      selfId,
      broadcast: (msg) => {
        this.sent.push({ from: selfId, bytes: msg });
        for (const peer of this.peersOf(selfId)) this.deliver(selfId, peer, msg);
      },
      send: (peer, msg) => {
        this.sent.push({ from: selfId, bytes: msg });
        if (peer !== selfId && this.nodes.has(peer)) this.deliver(selfId, peer, msg);
      },
      onMessage: (cb) => {
        node.handler = cb;
      },
      peers: () => this.peersOf(selfId),
    };
  }

  private peersOf(selfId: string): string[] {
    return [...this.nodes.keys()].filter((id) => id !== selfId).sort();
  }

  private deliver(from: string, to: string, msg: Uint8Array): void {
    setImmediate(() => void this.nodes.get(to)?.handler(from, msg.slice()));
  }
}
