import { badRequest, formatCoin, isAddress, notFound, pageOf, stateKey, type NodeServices, type QueryContext, type RouteTable, type RpcRequest } from '../../kernel/sdk.js';
import { rewardsOf, type RewardSource } from './ledger.js';
import { allDelegations, allNodes, delegationsTo, nodeKey, readNode, readStake, stakeKey } from './store.js';
import { delegationView, isJailed, nodeView, page, rewardView } from './views.js';
import { slashHistory, slashView } from './slashing.js';

function address(raw: string | undefined): string {
  if (!isAddress(raw)) throw badRequest(`"${raw}" is not a chain address`);
  return raw;
}

const SOURCES: readonly RewardSource[] = ['stake', 'delegation', 'commission'];

/** The staking and node read routes (part 1, "Staking" and "Names, nodes" tables), each at one committed height. */
export function stakingRoutes(routes: RouteTable, s: NodeServices, plugin: string): void {
  const at = <T>(fn: (ctx: QueryContext) => Promise<T>): Promise<T> => s.query.run(plugin, fn);
  // decisions.md §84: a node's and an address's staking are proven by their node and stake records.
  const nodeAndStake = { proves: (req: RpcRequest) => [stateKey(plugin, nodeKey(req.params.address!)), stateKey(plugin, stakeKey(req.params.address!))] };

  // decisions.md §23 and §37: 200 with zeros for an address with nothing bonded.
  routes.get('/api/v1/staking/info/:address', (req) =>
    at(async (ctx) => {
      const a = address(req.params.address);
      const stake = await readStake(ctx.store, a);
      const out = (await allDelegations(ctx.store)).filter((d) => d.delegator === a).reduce((sum, d) => sum + d.record.amount, 0n);
      const rewards = (await rewardsOf(ctx.store, a)).reduce((sum, r) => sum + r.amount, 0n);
      const node = await readNode(ctx.store, a);
      return {
        address: a,
        stake: stake?.amount ?? 0n,
        stake_human: formatCoin(stake?.amount ?? 0n),
        unlock_height: stake?.unlock_height ?? 0,
        delegations_out: out,
        delegations_out_human: formatCoin(out),
        rewards_total: rewards,
        rewards_total_human: formatCoin(rewards),
        jailed: node ? isJailed(node, ctx.height) : false,
        jailed_until: node?.jailed_until ?? 0,
      };
    }),
    nodeAndStake,
  );

  routes.get('/api/v1/staking/validators', (req) =>
    at(async (ctx) => {
      const { limit, offset } = pageOf(req.query, 100, 100);
      const rows = [];
      for (const n of await allNodes(ctx.store)) {
        const delegated = (await delegationsTo(ctx.store, n.address)).reduce((sum, d) => sum + d.record.amount, 0n);
        rows.push({ ...nodeView(n, await readStake(ctx.store, n.address), ctx.height), delegated, delegated_human: formatCoin(delegated) });
      }
      return page('validators', rows, limit, offset);
    }),
  );

  routes.get('/api/v1/staking/delegations/:validator', (req) =>
    at(async (ctx) => {
      const v = address(req.params.validator);
      const { limit, offset } = pageOf(req.query, 100, 100);
      return { validator: v, ...page('delegations', (await delegationsTo(ctx.store, v)).map((d) => delegationView(v, d.delegator, d.record)), limit, offset) };
    }),
  );

  routes.get('/api/v1/staking/my-delegations/:address', (req) =>
    at(async (ctx) => {
      const a = address(req.params.address);
      const { limit, offset } = pageOf(req.query, 100, 100);
      const mine = (await allDelegations(ctx.store)).filter((d) => d.delegator === a).map((d) => delegationView(d.validator, a, d.record));
      return { address: a, ...page('delegations', mine, limit, offset) };
    }),
  );

  routes.get('/api/v1/staking/rewards/:address', (req) =>
    at(async (ctx) => {
      const a = address(req.params.address);
      const source = req.query.get('source');
      if (source !== null && !SOURCES.includes(source as RewardSource)) throw badRequest(`source must be one of ${SOURCES.join(', ')}`);
      const { limit, offset } = pageOf(req.query, 100, 100);
      // Newest first, as the block and transaction lists are.
      const all = (await rewardsOf(ctx.store, a)).filter((r) => source === null || r.source === source).reverse();
      return { address: a, ...page('rewards', all.map(rewardView), limit, offset) };
    }),
  );

  // Node only (part 1): every slash, newest first; `limit` as the other lists.
  routes.get('/api/v1/slashing/history', (req) =>
    at(async (ctx) => {
      const { limit, offset } = pageOf(req.query, 100, 100);
      return page('slashes', (await slashHistory(ctx.store)).reverse().map(slashView), limit, offset);
    }),
  );

  routes.get('/api/v1/nodes', (req) =>
    at(async (ctx) => {
      const { limit, offset } = pageOf(req.query, 100, 100);
      const rows = [];
      for (const n of await allNodes(ctx.store)) rows.push(nodeView(n, await readStake(ctx.store, n.address), ctx.height));
      return page('nodes', rows, limit, offset);
    }),
  );

  routes.get('/api/v1/nodes/:address', (req) =>
    at(async (ctx) => {
      const a = address(req.params.address);
      const n = await readNode(ctx.store, a);
      if (!n) throw notFound(`node ${a} is not registered`);
      return nodeView(n, await readStake(ctx.store, a), ctx.height);
    }),
    nodeAndStake,
  );
}
