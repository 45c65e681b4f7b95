import type { Store } from '../../kernel/sdk.js';
import { packetCount, packetIndex, packets } from './store.js';
import type { PacketRecord } from './rules.js';

/** Appends a packet to the list (numbered from 1) and indexes it by direction, channel and sequence. */
export async function appendPacket(store: Store, record: PacketRecord): Promise<number> {
  const n = ((await packetCount.get(store)) ?? 0) + 1;
  packetCount.set(store, n);
  packets.set(store, n, record);
  packetIndex.set(store, record.direction, record.channel, record.sequence, n);
  return n;
}
