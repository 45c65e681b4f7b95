import type { Validator } from '../consensus/types.js';
import type { StateOverlay, StateSource } from './overlay.js';
import { jsonRecord } from './record-codec.js';

/*
 * The consensus validator set as the kernel keeps it (ABCI's model): plugins (staking) propose
 * updates through endBlock; the kernel applies them and consensus reads the set from state.
 */

export const VALIDATORS_NAMESPACE = 'vset';
const codec = jsonRecord<{ public_key: string; power: bigint }>();

export async function readValidatorSet(source: StateSource): Promise<Validator[]> {
  const rows = await source.scan(`${VALIDATORS_NAMESPACE}/`);
  // scan() is sorted by key, so the set is in canonical (address) order on every node.
  return rows.map(([k, v]) => ({ address: k.slice(VALIDATORS_NAMESPACE.length + 1), ...codec.decode(v) })).filter((v) => v.power > 0n);
}

export function writeValidator(overlay: StateOverlay, v: Validator): void {
  const key = `${VALIDATORS_NAMESPACE}/${v.address}`;
  if (v.power <= 0n) overlay.delete(key);
  else overlay.set(key, codec.encode({ public_key: v.public_key, power: v.power }));
}
