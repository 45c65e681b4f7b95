import { IBC_VALSET_KEY, compareIbcKeys, ibcValsetValue } from '../light-client/ibc-client.js';
import { utf8Bytes } from '../codec/utf8.js';
import type { StateOverlay } from './overlay.js';
import { readValidatorSet } from './validator-set.js';

/**
 * Keeps `ibc/valset` (decisions.md §66) equal to the validator set as the last endBlock left it,
 * so a commit header's `validators` can be proven under its `state_root` (§64): the kernel writes
 * it at genesis and in every block that changes the set, whatever plugins run, because the
 * kernel signs the headers. The key sits in the `ibc` namespace because the spec names it there;
 * the ibc plugin reads it and never writes it.
 */
export async function writeLightClientValset(overlay: StateOverlay): Promise<void> {
  const set = (await readValidatorSet(overlay)).sort((a, b) => compareIbcKeys(a.public_key, b.public_key));
  overlay.set(IBC_VALSET_KEY, utf8Bytes(ibcValsetValue(set)));
}
