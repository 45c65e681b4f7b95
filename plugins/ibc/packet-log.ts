import type { Store } from '../../kernel/sdk.js';
import { openPackets, packetCount, packetIndex, packets } from './store.js';
import type { PacketRecord } from './rules.js';

/** Appends a packet to the list (numbered from 1) and indexes it by direction, channel and sequence, and while it is locked. */
export async function appendPacket(store: Store, record: PacketRecord): Promise<number> {
  const n = ((await packetCount.get(store)) ?? 0) + 1;
  packetCount.set(store, n);
  packets.set(store, n, record);
  packetIndex.set(store, record.direction, record.channel, record.sequence, n);
  if (record.status === 'locked') openPackets.set(store, n, record.channel);
  return n;
}

/** Writes a locked packet's final status: it leaves the open list with it. */
export function settlePacket(store: Store, n: number, record: PacketRecord, status: 'committed' | 'timed_out', height: number): void {
  packets.set(store, n, { ...record, status, updated_height: height });
  openPackets.delete(store, n);
}
