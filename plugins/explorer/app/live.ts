import { Subscription, type ChainEvent, type SocketLike } from '../../../sdk/subscribe.js';

/** The gateway's `/ws` on this page's origin, reconnecting with growing delay (the SDK's Subscription). */
export function live(onEvent: (e: ChainEvent) => void, onConnection: (open: boolean) => void): Subscription {
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;
  return new Subscription(url, (u) => new WebSocket(u) as unknown as SocketLike, {
    events: ['init', 'new_block', 'tx'],
    onEvent,
    onConnection: (s) => onConnection(s.open),
  });
}
