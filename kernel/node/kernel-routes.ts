import { ProvenReads } from './proven-reads.js';
import { badRequest, notFound } from '../errors.js';
import { formatCoin } from '../codec/amount.js';
import { isHash0x, parseHex, toHex0x } from '../codec/hex.js';
import { merkleProof } from '../crypto/merkle.js';
import { accountsReader } from '../state/accounts.js';
import { GAS_CONTRACT_CALL, GAS_TRANSFER, NFT_TRANSFER_FEE } from '../chain/kernel-params.js';
import { STORAGE_BYTE_PRICE_PARAM, STORAGE_FREE_BYTES_PARAM } from '../chain/state-growth.js';
import type { TxFields } from '../tx/record.js';
import type { ParamRegistry } from '../state/params.js';
import { reply } from '../rpc/index.js';
import { pageFrom } from './pagination.js';
import { toPage } from './page-query.js';
import { KERNEL_ROUTES } from './kernel-declarations.js';
import { ActivityWindow, type Activity } from './activity.js';
import type { RouteTable } from '../host/route-table.js';
import type { KernelServices } from './services.js';
import type { TxPage } from '../store/chain-store.js';
import { accountView, blockView, eventView, totalsView, txView, validatorView } from './views.js';
import { registerPluginRoutes } from './plugin-routes.js';
import type { BlockRecord, Tx } from '../model/types.js';
import type { OperationRegistry } from '../ops/registry.js';
import type { PluginHost } from '../host/host.js';
import { OPERATION_TARGET_PREFIX, operationOf } from '../model/types.js';
import { CROSS_SHARD_TARGET } from '../crypto/shard.js';
import { validatorSetHash } from '../chain/block-hash.js';
import { sortValidators, validatorsToJson } from '../light-client/index.js';

function heightParam(raw: string | undefined): number {
  if (raw === undefined || !/^\d{1,15}$/.test(raw)) throw badRequest(`block height must be a positive integer, got "${raw}"`);
  const h = Number(raw);
  if (h < 1) throw badRequest('block heights start at 1');
  return h;
}

function hashParam(raw: string | undefined): string {
  const h = (raw ?? '').toLowerCase();
  if (!isHash0x(h)) throw badRequest(`transaction hash must be 0x followed by 64 hex characters, got "${raw}"`);
  return h;
}

/** The node RPC endpoints the kernel itself answers (part 1, endpoint tables, node side). */
export function registerKernelRoutes(routes: RouteTable, s: KernelServices, params: ParamRegistry, operations: OperationRegistry, host: PluginHost<unknown>): void {
  const { chain } = s;
  // decisions.md §71: the shard bound to the genesis (CHAIN_SHARDS is ignored without CHAIN_SHARD_ID).
  const nShards = s.shards.count;
  const shardId = s.shards.id;
  const store = chain.queries;

  const viewOf = async (tx: TxFields & Partial<Pick<Tx, 'body'>>, receipt: import('../model/types.js').Receipt | undefined): Promise<Record<string, unknown>> => {
    const block = receipt ? await store.getBlock(receipt.block) : undefined;
    return txView({ tx, receipt, blockTimestamp: block?.header.timestamp, gas: chain.gasOf(tx), shard: shardId, type: chain.typeOf(tx.target) });
  };

  const health = async (): Promise<Record<string, unknown>> => {
    const set = await chain.queries.validatorSet();
    const n = set.length;
    const f = Math.floor((n - 1) / 3);
    const recent = await activityNow();
    const behind = s.consensus.behind();
    return {
      status: behind > 0 ? 'syncing' : 'ok',
      network: s.config.network,
      chain_id: chain.chainId,
      height: chain.head.height,
      round: s.consensus.round(),
      mempool: chain.mempool.size,
      peers: s.consensus.peers().length,
      tps: recent.tps,
      total_txs: chain.head.total_txs,
      validator_count: n,
      bft_quorum: n === 0 ? 0 : 2 * f + 1,
      bft_ready: n >= s.config.consensus.min_validators,
      finality_ms: recent.blockMs,
      behind,
      shard: shardId,
      n_shards: nShards,
    };
  };

  /**
   * /health is polled often (gateways, dashboards, load generators) and this reads blocks (all 21
   * after a start, then the new one), so the answer is kept until the head moves.
   */
  let activity: { height: number; value: Promise<Activity> } | null = null;
  /** Throughput over the last blocks, from block timestamps (measured, not a constant). */
  const activityWindow = new ActivityWindow((height) => store.getBlock(height));
  /** The last figures computed, for /health while the head's are still being read. */
  let settled: Activity | null = null;
  let settledAt = -1;
  const recentActivity = (): Promise<Activity> => {
    const top = chain.head.height;
    if (activity?.height !== top) {
      const value = activityWindow.at(top);
      activity = { height: top, value };
      value.then(
        (a) => {
          // The newest finished read wins, whatever order reads finish in.
          if (settledAt <= top) {
            settled = a;
            settledAt = top;
          }
        },
        () => {
          if (activity?.value === value) activity = null;
        },
      );
    }
    return activity.value;
  };
  /**
   * What /health reports: the head's figures once read, else those of the block before (a figure
   * over 20 blocks, one block stale). /health never waits on the block reads: under load each
   * waits its turn of the event loop behind a block's contract-thread state reads (issue 29, item 1).
   */
  const activityNow = (): Promise<Activity> | Activity => {
    const pending = recentActivity();
    return settled ?? pending;
  };

  routes.serve(KERNEL_ROUTES.health, health);
  // Computed as each block commits, not by the first /health after it: under load (a contract
  // thread's state reads queue on this thread) its block reads would each wait a turn of the loop.
  chain.on('committed', () => void recentActivity().catch(() => undefined));

  const status = async (): Promise<Record<string, unknown>> => {
    const set = await chain.queries.validatorSet();
    return {
      network: s.config.network,
      chain_id: chain.chainId,
      genesis_hash: s.node.genesisHash,
      node_id: s.node.nodeId,
      node_address: set.some((v) => v.address === s.node.nodeAddress) ? s.node.nodeAddress : null,
      moniker: s.node.moniker,
      p2p_endpoint: s.node.p2pEndpoint(),
      env: s.config.env,
      height: chain.head.height,
      block_hash: chain.head.block_hash,
      state_root: chain.head.state_root,
      validators: set.map((v) => ({ address: v.address, power: v.power })),
      validator_count: set.length,
      shards: nShards,
      shard_id: shardId,
      total_txs: chain.head.total_txs,
    };
  };
  routes.serve(KERNEL_ROUTES.statusRoot, status);
  routes.serve(KERNEL_ROUTES.status, status);
  // The document as loaded: a client pins its hash (decisions.md §83, §85).
  routes.serve(KERNEL_ROUTES.genesis, () => s.node.genesis);

  // decisions.md §34: the §20 paging fields beside the list's own; `count` and `total_staked`
  // describe the whole active set, the page is the validators in address order from `offset`.
  routes.serve(KERNEL_ROUTES.validators, async (req) => {
    const { limit, offset } = toPage(req.query);
    // The figures are read one validator at a time; a block committed meanwhile would mix two
    // heights in one answer (a trust share over the wrong window), so the read is taken again.
    let height: number;
    let windowBlocks: number;
    let validators: ReturnType<typeof validatorView>[];
    let count: number;
    let total: bigint;
    let attempts = 0;
    do {
      height = chain.head.height;
      windowBlocks = store.trustWindowBlocks;
      const set = await chain.queries.validatorSet();
      count = set.length;
      total = set.reduce((sum, v) => sum + v.power, 0n);
      validators = [];
      for (const v of set.slice(offset, offset + limit)) validators.push(validatorView(v, await store.validatorActivity(v.address), windowBlocks));
    } while (chain.head.height !== height && ++attempts < 3);
    return {
      validators,
      count,
      total_staked: total,
      total_staked_human: formatCoin(total),
      height,
      trust_window_blocks: windowBlocks,
      counted_from: store.activityCountedFrom,
      total: count,
      limit,
      offset,
      has_more: offset + limit < count,
    };
  });

  routes.serve(KERNEL_ROUTES.metrics, async () => reply(200, await s.registry.metrics(), { contentType: s.registry.contentType }));

  routes.serve(KERNEL_ROUTES.peers, () => {
    const peers = s.consensus.peers();
    return { peers, count: peers.length };
  });

  routes.serve(KERNEL_ROUTES.blocks, async (req) => {
    const { limit, offset } = toPage(req.query);
    const top = chain.head.height;
    const blocks = [];
    for (let h = top - offset; h >= 1 && blocks.length < limit; h--) {
      const b = await store.getBlock(h);
      if (b) blocks.push(blockView(b));
    }
    return { blocks, total: top, limit, offset, has_more: top - offset - blocks.length >= 1 };
  });

  /** The committed block a `:height` names: 400 for a bad height, 404 for one not committed yet. */
  const committedBlock = async (raw: string | undefined): Promise<BlockRecord> => {
    const h = heightParam(raw);
    const b = await store.getBlock(h);
    if (!b) throw notFound(`block ${h} not found (latest is ${chain.head.height})`);
    return b;
  };

  // Part 1 marks it Gateway only: 404 as for the gateway's other paths, not a 400 for a height "latest".
  routes.get(
    '/api/v1/blocks/latest',
    () => {
      throw notFound('GET /api/v1/blocks/latest is served by the gateway only (part 1: Gateway only), not by a node', 'ask the gateway, or read height from a node\'s GET /api/v1/status and then GET /api/v1/blocks/<height>');
    },
    { listed: false },
  );

  // A block by height or, for explorers and search boxes, by its hash (`0x` + 64 hex).
  routes.serve(KERNEL_ROUTES.block, async (req) => {
    const raw = req.params.height;
    if (raw !== undefined && raw.startsWith('0x')) {
      const hash = raw.toLowerCase();
      if (!isHash0x(hash)) throw badRequest(`a block is named by its height or its hash (0x followed by 64 hex characters), got "${raw}"`);
      const h = await store.getBlockHeightByHash(hash);
      const b = h === undefined ? undefined : await store.getBlock(h);
      if (!b) throw notFound(`no committed block has hash ${hash}`);
      return blockView(b);
    }
    return blockView(await committedBlock(raw));
  });

  // decisions.md §84: what a light client checks a header with. 404 above the tip.
  const proven = new ProvenReads(chain, s.query);
  routes.serve(KERNEL_ROUTES.blockCommit, (req) => proven.commitAt(heightParam(req.params.height)));

  routes.serve(KERNEL_ROUTES.blockTransactions, async (req) => {
    const b = await committedBlock(req.params.height);
    const h = b.header.height;
    // §20 paging with part 2's transaction cap; by default a whole block (at most a few hundred
    // transactions fit under max_block_gas) fits in one page. `count` is the block's total.
    const { limit, offset } = toPage(req.query);
    const transactions = [];
    for (const hash of b.tx_hashes.slice(offset, offset + limit)) {
      const st = await store.getTxFields(hash);
      if (st) transactions.push(txView({ tx: st.tx, receipt: st.receipt, blockTimestamp: b.header.timestamp, gas: chain.gasOf(st.tx), shard: shardId, type: chain.typeOf(st.tx.target) }));
    }
    const total = b.tx_hashes.length;
    return { height: h, transactions, count: total, total, limit, offset, has_more: offset + limit < total };
  });

  // Events are stored in the block's own batch, so a block that reads back has its events.
  routes.serve(KERNEL_ROUTES.blockEvents, async (req) => {
    const b = await committedBlock(req.params.height);
    const events = await store.getBlockEvents(b.header.height);
    return { height: b.header.height, events: events.map(eventView), total: events.length };
  });

  routes.serve(KERNEL_ROUTES.submit, async (req) => {
    try {
      const result = await chain.admit(req.body, s.now(), 'local', req.raw.bodyText);
      s.metrics.txsSubmitted.inc();
      return result;
    } catch (e) {
      s.metrics.txsRejected.inc({ status: String((e as { status?: number }).status ?? 500) });
      throw e;
    }
  });

  routes.serve(KERNEL_ROUTES.transactions, async (req) => {
    const q = req.query;
    const { limit, offset } = pageFrom(q);
    const { hash, address: a, type } = q;
    if (hash) {
      const found = await chain.lookupTx(hash.toLowerCase());
      const transactions = found ? [await viewOf(found.tx, found.receipt)] : [];
      return { transactions, total: transactions.length, limit, offset: 0, has_more: false };
    }
    let page: TxPage;
    if (type && type !== 'all') page = await store.matchingTxHashes(a, (target) => matchesType(target, type, chain.typeOf), offset, limit);
    else if (a !== undefined) page = { hashes: await store.addressTxHashes(a, offset, limit), total: await store.countAddressTxs(a) };
    else page = { hashes: await store.latestTxHashes(offset, limit), total: store.indexedTxCount };
    const transactions = [];
    for (const h of page.hashes) {
      const st = await store.getTxFields(h);
      if (st) transactions.push(await viewOf(st.tx, st.receipt));
    }
    // A filtered walk that hit its bound: total is a lower bound and more may follow.
    if (page.exact === false) return { transactions, total: page.total, total_exact: false, limit, offset, has_more: true };
    return { transactions, total: page.total, limit, offset, has_more: offset + page.hashes.length < page.total };
  });

  routes.serve(KERNEL_ROUTES.transaction, async (req) => {
    const hash = hashParam(req.params.hash);
    const found = await chain.lookupTx(hash);
    if (!found) throw notFound(`transaction ${hash} not found`);
    // Only this view carries events: lists stay one record read per transaction.
    const events = found.receipt ? await store.getTxEvents(found.receipt.block, hash) : [];
    // decisions.md §36: a transaction whose handler emitted an event carrying `return_data` (a
    // contract call or deploy) shows it on the transaction, the last such event's.
    const returned = [...events].reverse().find((e) => typeof e.data.return_data === 'string')?.data.return_data;
    // What the operation names on its transaction from the events it emitted (`viewFields`: a vault proposal's `proposal_id`).
    // A plain transaction to a system address takes the fields its plugin declares there.
    const op = operationOf(found.tx);
    const viewFields = op === undefined ? host.systemAddress(found.tx.to)?.viewFields : operations.get(op)?.spec.viewFields;
    // §36 again: a call or deploy that failed emitted nothing, and still shows `return_data` ("").
    const kind = found.tx.target.startsWith('kind:') ? host.addressKind(found.tx.target.slice(5)) : undefined;
    const returnsData = op === undefined ? (kind ?? host.systemAddress(found.tx.to))?.returnsData === true : operations.get(op)?.spec.returnsData === true;
    const named: Record<string, unknown> = {};
    for (const { field, event } of viewFields ?? []) {
      const from = events.find((e) => e.type === event && e.data[field] !== undefined);
      if (from !== undefined) named[field] = from.data[field];
    }
    // decisions.md §74: a transfer to another shard shows its lock as it now stands.
    const crossShard = host.crossShard();
    if (found.tx.target === CROSS_SHARD_TARGET && crossShard !== undefined) {
      const lock = await s.query.run(crossShard.plugin, (ctx) => crossShard.view(ctx, hash));
      if (lock !== undefined) named.cross_shard = lock;
    }
    return { ...(await viewOf(found.tx, found.receipt)), ...named, ...(returned !== undefined ? { return_data: returned } : returnsData ? { return_data: '' } : {}), events: events.map(eventView) };
  });

  routes.serve(KERNEL_ROUTES.txProof, async (req) => {
    const hash = hashParam(req.params.hash);
    const st = await store.getTxFields(hash);
    if (!st) throw notFound(`transaction ${hash} is not in a committed block`);
    const block = await store.getBlock(st.receipt.block);
    if (!block) throw notFound(`block ${st.receipt.block} not found`);
    const leaves = block.tx_hashes.map((h) => parseHex(h)!);
    return {
      tx_hash: hash,
      leaf_index: st.receipt.index,
      leaf_count: leaves.length,
      proof: merkleProof(leaves, st.receipt.index).map(toHex0x),
      tx_root: block.header.tx_root,
      block_height: block.header.height,
      block_hash: block.hash,
    };
  });

  // decisions.md §84: `?prove=true` proves balance, nonce and tx_count by the account's record;
  // §39: a registered name answers the account it stands for (its owner's), whose record is
  // proven beside the name's record that resolved it (`provingReads`).
  routes.serve(KERNEL_ROUTES.account, async (req) => {
    const named = req.params.address;
    const { address, acct, custom } = await s.query.run('kernel', async (ctx) => {
      const address = (await s.query.provingReads(() => ctx.recipients.nameTarget(named))) ?? named;
      const [acct, custom] = await Promise.all([ctx.accounts.get(address), ctx.recipients.customAddress(address)]);
      return { address, acct, custom };
    });
    return accountView(address, acct, chain.mempool.nextNonce(address, acct.nonce), s.shards.shardOf(address), custom);
  });

  routes.serve(KERNEL_ROUTES.accountTransactions, async (req) => {
    const address = req.params.address;
    const { limit, offset } = toPage(req.query);
    const hashes = await store.addressTxHashes(address, offset, limit);
    const total = await store.countAddressTxs(address);
    const transactions = [];
    for (const h of hashes) {
      const st = await store.getTxFields(h);
      if (st) transactions.push(await viewOf(st.tx, st.receipt));
    }
    return { address, transactions, total, limit, offset, has_more: offset + hashes.length < total };
  });

  routes.serve(KERNEL_ROUTES.accountTotals, async (req) => {
    const address = req.params.address;
    return totalsView(address, await store.getTotals(address));
  });

  routes.serve(KERNEL_ROUTES.gasEstimate, async () => {
    const baseFee = await chain.queries.param('base_fee');
    const transfer = BigInt(GAS_TRANSFER) * baseFee;
    const contract = BigInt(GAS_CONTRACT_CALL) * baseFee;
    const bytePrice = await chain.queries.param(STORAGE_BYTE_PRICE_PARAM);
    return {
      base_fee: baseFee,
      gas_base_transfer: GAS_TRANSFER,
      gas_contract_call: GAS_CONTRACT_CALL,
      estimated_transfer: transfer,
      estimated_transfer_human: formatCoin(transfer),
      estimated_contract: contract,
      estimated_contract_human: formatCoin(contract),
      nft_transfer_fee: NFT_TRANSFER_FEE,
      nft_transfer_fee_human: formatCoin(NFT_TRANSFER_FEE),
      total_burned: chain.head.total_burned,
      total_burned_human: formatCoin(chain.head.total_burned),
      // The price of state growth (chain/state-growth.ts): per net new byte a transaction stores
      // beyond the free allowance, burned on top of the fee.
      storage_byte_price: bytePrice,
      storage_byte_price_human: formatCoin(bytePrice),
      storage_free_bytes: await chain.queries.param(STORAGE_FREE_BYTES_PARAM),
      // decisions.md §18: every operation's gas, by name.
      // The unsigned relay writes (decisions.md §76) with the gas they count against max_block_gas.
      operations: Object.fromEntries([...operations.list().map((o) => [o.spec.name, o.spec.gas] as const), ...host.systemTransactionGasList()]),
    };
  });

  registerPluginRoutes(routes, host, operations, () => chain.head.height + 1);

  // decisions.md §77: this node fills its own shard's entry only; the gateway assembles every shard's.
  routes.serve(KERNEL_ROUTES.stateRoot, () => {
    const own = <T>(value: T): Array<T | null> => Array.from({ length: nShards }, (_, s) => (s === shardId ? value : null));
    return {
      n_shards: nShards,
      shard_roots: own(chain.head.state_root),
      shard_heights: own(chain.head.height),
      height: chain.head.height,
      root_height: chain.head.height,
      global_root: nShards === 1 ? chain.head.state_root : null,
    };
  });

  // Part 1, Network and node: each shard's height and root. A node runs one shard (CHAIN_SHARD_ID) and sees no
  // other, so it lists the one it serves; the gateway assembles every shard from their nodes.
  routes.serve(KERNEL_ROUTES.shards, async () => {
    const head = chain.head;
    const set = sortValidators(await chain.queries.validatorSet());
    const crossShard = host.crossShard();
    const totals = crossShard === undefined ? NO_CROSS_SHARD : await s.query.run(crossShard.plugin, (ctx) => crossShard.totals(ctx));
    return {
      n_shards: nShards,
      shard_id: shardId,
      shards: [{ shard: shardId, height: head.height, block_hash: head.block_hash, state_root: head.state_root, validators: validatorsToJson(set), validators_hash: validatorSetHash(set), cross_shard: totals }],
    };
  });

  routes.serve(KERNEL_ROUTES.stateProof, async (req) => chain.queries.proveState(req.query.key, req.query.height));

  routes.serve(KERNEL_ROUTES.governanceParams, async () => {
    const reader = params.reader(store.state);
    const out: Record<string, unknown> = {};
    for (const spec of params.list()) {
      const value = await reader.get(spec.key);
      out[spec.key] = {
        value,
        default: spec.default,
        min: spec.min ?? null,
        max: spec.max ?? null,
        description: spec.description,
        module: spec.owner,
        // decisions.md §21: a *_human string beside each ucoin amount.
        ...(spec.unit === 'ucoin' ? { value_human: formatCoin(value), default_human: formatCoin(spec.default), min_human: spec.min === undefined ? null : formatCoin(spec.min), max_human: spec.max === undefined ? null : formatCoin(spec.max) } : {}),
      };
    }
    return { params: out, height: chain.head.height };
  });
}

const STAKING_OPERATIONS = new Set(['stake', 'unstake', 'delegate', 'undelegate'].map((n) => OPERATION_TARGET_PREFIX + n));

/** Whether a transaction with dispatch key `target` is listed by `?type=`: its shown type (Chain.typeOf), `staking`, or the key itself. */
function matchesType(target: string, type: string, typeOf: (target: string) => string): boolean {
  // decisions.md §34: `staking` lists stake, unstake, delegate and undelegate.
  if (type === 'staking') return STAKING_OPERATIONS.has(target) || target === 'chain:system.stake';
  return typeOf(target) === type || target === type || target === `chain:system.${type}`;
}

/** `cross_shard` of a network that serves no cross-shard transfers (decisions.md §76): nothing ever locked. */
const NO_CROSS_SHARD = Object.freeze({ locked: 0n, locked_human: formatCoin(0n), sent: 0n, sent_human: formatCoin(0n), refunded: 0n, refunded_human: formatCoin(0n), received: 0n, received_human: formatCoin(0n) });
