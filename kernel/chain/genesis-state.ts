import type { NetworkEnv } from '../context/contexts.js';
import type { GenesisDoc } from '../config/genesis.js';
import { genesisOfShard } from '../config/genesis-rules.js';
import type { Hooks } from '../host/hooks.js';
import type { PluginHost } from '../host/host.js';
import { writeSchedule } from '../host/schedule-state.js';
import type { BlockInfo } from '../model/types.js';
import type { ShardView } from '../crypto/shard.js';
import { toHex0x } from '../codec/hex.js';
import { utf8Bytes } from '../codec/utf8.js';
import { accountsWriter } from '../state/accounts.js';
import { IndexStage } from '../state/index-stage.js';
import { WriteBatch } from '../state/kv.js';
import { writeLightClientValset } from '../state/light-client-valset.js';
import { StateOverlay } from '../state/overlay.js';
import { paramStateKey, type ParamRegistry } from '../state/params.js';
import { bigintCodec } from '../state/record-codec.js';
import { writeShardBinding } from '../state/shard-binding.js';
import { EMPTY_ROOT, type StateTree } from '../state/tree/index.js';
import { writeValidator } from '../state/validator-set.js';
import type { ChainStore } from '../store/chain-store.js';
import { genesisContext } from './contexts.js';
import { GENESIS_RANGE_CHUNK, stageGenesisRanges } from './genesis-accounts.js';

export interface GenesisStateDeps {
  readonly store: ChainStore;
  readonly tree: StateTree;
  readonly hooks: Hooks;
  readonly host: PluginHost<unknown>;
  readonly params: ParamRegistry;
  readonly env: NetworkEnv;
  readonly paramOverrides: Readonly<Record<string, string>>;
  readonly shards: ShardView;
}

/**
 * Writes the state of height 0 into an empty store: the chain's identity and its shard, the plugin
 * schedule, every parameter, the genesis accounts and validators, then what each plugin's
 * `initGenesis` adds, under the first state root.
 */
export async function writeGenesisState(d: GenesisStateDeps, whole: GenesisDoc, genesisHash: string): Promise<void> {
  let genesis = whole;
  // Whatever a start killed half-way left (a streamed snapshot install, a range write under other
  // ranges) is readable through the store but in no tree: genesis starts from nothing.
  await d.store.discardStaged();
  // The ranges first, streamed into the store: the rest of genesis joins their bulk build (or, if
  // it deletes a key, is an ordinary update on top of their root), and an account listed both ways
  // sums (its credit reads the range's balance back).
  const ranges = whole.account_ranges?.length ? await stageGenesisRanges(d, whole.account_ranges) : null;
  const overlay = new StateOverlay(d.store.state);
  overlay.set('kernel/chain_id', utf8Bytes(genesis.chain_id));
  overlay.set('kernel/genesis_hash', utf8Bytes(genesisHash));
  // decisions.md §71: the shard is bound to its genesis state (and so to every state root), so a
  // node cannot join another shard's chain; a one-shard network writes nothing (roots as §13).
  if (d.shards.count > 1) writeShardBinding(overlay, { shard: d.shards.id, n_shards: d.shards.count });
  // Shard s starts with its own validators and the accounts it owns (§71).
  genesis = genesisOfShard(genesis, d.shards.id);
  // The plugin activation schedule is state, so nodes configured differently diverge visibly.
  writeSchedule(overlay, d.host.genesisSchedule());
  for (const spec of d.params.list()) {
    const raw = genesis.params[spec.key] ?? d.paramOverrides[spec.key];
    const value = raw === undefined ? spec.default : BigInt(raw);
    const problem = d.params.checkValue(spec.key, value);
    if (problem) throw new Error(`genesis: ${problem}`);
    overlay.set(paramStateKey(spec.key), bigintCodec.encode(value));
  }
  const accounts = accountsWriter(overlay);
  for (const a of genesis.accounts) await accounts.credit(a.address, BigInt(a.balance));
  for (const v of genesis.validators) writeValidator(overlay, { address: v.address, public_key: v.public_key, power: BigInt(v.stake) });
  await writeLightClientValset(overlay);
  const block: BlockInfo = { chainId: genesis.chain_id, height: 0, round: 0, timestamp: genesis.genesis_time, proposer: '' };
  const index = new IndexStage();
  // Genesis is no block: there is no height to store its events under, so they are dropped.
  await d.hooks.initGenesis.promise(genesisContext({ env: d.env, params: d.params, methods: d.host.methods, boundary: d.host.boundary, shards: d.shards }, overlay, block, genesis, { emit: () => undefined, index }, whole));
  const changes = overlay.changes();
  const batch = new WriteBatch();
  let root: Uint8Array;
  if (ranges !== null && changes.every(([, v]) => v !== null)) {
    // Into the ranges' bulk build (its leaves committed with the head below): the same root as an
    // update on top, since these are puts and the last value of a key wins in both.
    for (const [k, v] of changes) ranges.build.add(utf8Bytes(k), v!, batch);
    root = await ranges.build.finish((ops) => d.store.writeStaged([], ops), GENESIS_RANGE_CHUNK);
  } else {
    const base = ranges === null ? EMPTY_ROOT : await ranges.build.finish((ops) => d.store.writeStaged([], ops), GENESIS_RANGE_CHUNK);
    root = await d.tree.update(base, changes.map(([k, v]) => [utf8Bytes(k), v] as const), batch);
  }
  await d.store.flushStaged();
  await d.store.commitGenesis(changes, batch.ops, toHex0x(root), index.staged);
  d.tree.releasePending();
}
