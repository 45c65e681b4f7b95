import { badRequest, countedPage, formatCoin, isAddress, notFound, pageOf, stateKey, type NodeServices, type QueryContext, type RouteTable, type RpcRequest } from '../../kernel/sdk.js';
import { REWARD_SOURCES, rewardsPage, rewardSummary, type RewardSource } from './reward-records.js';
import { delegatedBy, delegatedTo, delegationsBy, delegationsTo, nodeCount, nodeKey, nodesPage, readNode, readStake, stakeKey } from './store.js';
import { delegationView, isJailed, nodeView, rewardView } from './views.js';
import { slashPage, slashView } from './slashing.js';

function address(raw: string | undefined): string {
  if (!isAddress(raw)) throw badRequest(`"${raw}" is not a chain address`);
  return raw;
}

/**
 * The staking and node read routes (part 1, "Staking" and "Names, nodes" tables), each at one
 * committed height. Every list is a page (decisions.md §20: `limit` at most 100, `offset`) read
 * from a key range that holds only its own records, with its total kept in a record: a request
 * costs its page (and its offset), never the whole state, whoever filled the list.
 */
export function stakingRoutes(routes: RouteTable, s: NodeServices, plugin: string): void {
  const at = <T>(fn: (ctx: QueryContext) => Promise<T>): Promise<T> => s.query.run(plugin, fn);
  // decisions.md §84: a node's and an address's staking are proven by their node and stake records.
  const nodeAndStake = { proves: (req: RpcRequest) => [stateKey(plugin, nodeKey(req.params.address!)), stateKey(plugin, stakeKey(req.params.address!))] };

  // decisions.md §23 and §37: 200 with zeros for an address with nothing bonded. Five reads.
  routes.get('/api/v1/staking/info/:address', (req) =>
    at(async (ctx) => {
      const a = address(req.params.address);
      const stake = await readStake(ctx.store, a);
      const out = (await delegatedBy(ctx.store, a)).amount;
      const rewards = (await rewardSummary(ctx.store, a)).total;
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
      for (const n of await nodesPage(ctx.store, limit, offset)) {
        const delegated = (await delegatedTo(ctx.store, n.address)).amount;
        rows.push({ ...nodeView(n, await readStake(ctx.store, n.address), ctx.height), delegated, delegated_human: formatCoin(delegated) });
      }
      return countedPage('validators', rows, await nodeCount(ctx.store), limit, offset);
    }),
  );

  routes.get('/api/v1/staking/delegations/:validator', (req) =>
    at(async (ctx) => {
      const v = address(req.params.validator);
      const { limit, offset } = pageOf(req.query, 100, 100);
      const rows = (await delegationsTo(ctx.store, v, limit, offset)).map((d) => delegationView(v, d.delegator, d.record));
      return { validator: v, ...countedPage('delegations', rows, (await delegatedTo(ctx.store, v)).count, limit, offset) };
    }),
  );

  // Read through the delegator's own index (delegator/<address>/…), not by walking every delegation.
  routes.get('/api/v1/staking/my-delegations/:address', (req) =>
    at(async (ctx) => {
      const a = address(req.params.address);
      const { limit, offset } = pageOf(req.query, 100, 100);
      const rows = (await delegationsBy(ctx.store, a, limit, offset)).map((d) => delegationView(d.validator, a, d.record));
      return { address: a, ...countedPage('delegations', rows, (await delegatedBy(ctx.store, a)).count, limit, offset) };
    }),
  );

  routes.get('/api/v1/staking/rewards/:address', (req) =>
    at(async (ctx) => {
      const a = address(req.params.address);
      const source = req.query.get('source');
      if (source !== null && !REWARD_SOURCES.includes(source as RewardSource)) throw badRequest(`source must be one of ${REWARD_SOURCES.join(', ')}`);
      const { limit, offset } = pageOf(req.query, 100, 100);
      // Newest first, as the block and transaction lists are.
      const { rows, total } = await rewardsPage(ctx.store, a, source === null ? REWARD_SOURCES : [source as RewardSource], limit, offset);
      return { address: a, ...countedPage('rewards', rows.map(rewardView), total, limit, offset) };
    }),
  );

  // Node only (part 1): every slash, newest first; `limit` as the other lists.
  routes.get('/api/v1/slashing/history', (req) =>
    at(async (ctx) => {
      const { limit, offset } = pageOf(req.query, 100, 100);
      const { rows, total } = await slashPage(ctx.store, limit, offset);
      return countedPage('slashes', rows.map(slashView), total, limit, offset);
    }),
  );

  routes.get('/api/v1/nodes', (req) =>
    at(async (ctx) => {
      const { limit, offset } = pageOf(req.query, 100, 100);
      const rows = [];
      for (const n of await nodesPage(ctx.store, limit, offset)) rows.push(nodeView(n, await readStake(ctx.store, n.address), ctx.height));
      return countedPage('nodes', rows, await nodeCount(ctx.store), limit, offset);
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
