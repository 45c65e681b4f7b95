import { canonicalJson } from '../../kernel/codec/json.js';
import { toHex0x } from '../../kernel/codec/hex.js';
import { sha3 } from '../../kernel/crypto/hash.js';
import { changeSchedule, pluginState, type PluginScheduleEntry } from '../../kernel/context/schedule.js';
import { ParamRegistry } from '../../kernel/state/params.js';

/**
 * The simulation's application state, enough to exercise governance outcomes in consensus with
 * the kernel's own rules: one parameter (`sim_payload_chars`, checked by the kernel's
 * ParamRegistry, which every block's payload length must equal) and one state plugin (`beacon`,
 * switched by the kernel's `changeSchedule`, which counts the blocks it is active in). Blocks
 * carry the root of this state before them; a node applying a change at another height than its
 * peers would hold another root and refuse their blocks, so a disagreement shows as a safety or
 * liveness failure.
 */
export const PAYLOAD_PARAM = 'sim_payload_chars';
export const BEACON = 'beacon';

export type SimAction = { readonly kind: 'param'; readonly key: string; readonly value: string } | { readonly kind: 'plugin'; readonly name: string; readonly change: 'activate' | 'retire'; readonly height: number };

export function isSimAction(x: unknown): x is SimAction {
  if (typeof x !== 'object' || x === null) return false;
  const a = x as Record<string, unknown>;
  if (a['kind'] === 'param') return typeof a['key'] === 'string' && typeof a['value'] === 'string' && /^[0-9]{1,18}$/.test(a['value']) && Object.keys(a).length === 3;
  if (a['kind'] === 'plugin') return typeof a['name'] === 'string' && (a['change'] === 'activate' || a['change'] === 'retire') && Number.isSafeInteger(a['height']) && Object.keys(a).length === 4;
  return false;
}

const registry = new ParamRegistry();
registry.declare('sim', { key: PAYLOAD_PARAM, default: 32n, min: 16n, max: 64n, description: 'payload length of a simulated block' });

export class SimAppState {
  private readonly params = new Map<string, bigint>([[PAYLOAD_PARAM, 32n]]);
  private schedule: PluginScheduleEntry[] = [{ name: BEACON, activation_height: null, retire_height: null }];
  private beats = 0;
  /** The first height beacon ran at, on this node. */
  beaconFirst: number | null = null;
  /** Governance outcomes refused by the kernel's rules (out of range, a bad schedule change). */
  readonly refused: string[] = [];

  payloadChars(): number {
    return Number(this.params.get(PAYLOAD_PARAM));
  }

  root(): string {
    return toHex0x(sha3(canonicalJson({ params: [...this.params].map(([k, v]) => [k, v.toString()]), schedule: this.schedule, beats: this.beats, beaconFirst: this.beaconFirst })));
  }

  /** beginBlock (beacon, when active at the height), then the block's governance outcomes at its end. */
  apply(height: number, actions: readonly SimAction[]): void {
    if (pluginState(this.schedule[0], height) === 'active') {
      this.beats++;
      this.beaconFirst ??= height;
    }
    for (const a of actions) {
      if (a.kind === 'param') {
        const problem = registry.checkValue(a.key, BigInt(a.value));
        if (problem) this.refused.push(`${height}: ${problem}`);
        else this.params.set(a.key, BigInt(a.value));
      } else {
        const next = changeSchedule(this.schedule, { name: a.name, change: a.change, height: a.height }, height);
        if (typeof next === 'string') this.refused.push(`${height}: ${next}`);
        else this.schedule = next;
      }
    }
  }
}
