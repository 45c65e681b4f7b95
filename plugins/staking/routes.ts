import { Type } from '@sinclair/typebox';
import { badRequest, countedPage, defineRoute, formatCoin, isAddress, notFound, pageAnswer, pageQuery, toPage, type NodeServices, type QueryContext, type RouteTable } from '../../kernel/sdk.js';
import { rewardsPage, rewardSummary } from './reward-records.js';
import { delegatedBy, delegatedTo, delegationsBy, delegationsTo, nodeCount, nodes, nodesPage, REWARD_SOURCES, stakes, type RewardSource } from './store.js';
import { delegationView, isJailed, nodeView, rewardView } from './views.js';
import { slashPage, slashView } from './slashing.js';
import { DelegationView, NodeView, RewardView, SlashView, StakingInfo } from './schemas.js';

/**
 * The staking and node read routes (part 1, "Staking" and "Names, nodes" tables), each at one
 * committed height. Every list is a page (decisions.md §20: `limit` at most 100, `offset`) read
 * from a key range that holds only its own records, with its total kept in a record: a request
 * costs its page (and its offset), never the whole state, whoever filled the list.
 *
 * Path addresses are any text to the schema and judged in the handler, so a bad one is answered
 * in the words it always was (`"x" is not a chain address`, 400).
 */
const AddressParams = Type.Object({ address: Type.String({ minLength: 1, description: 'a chain address' }) });
const ValidatorParams = Type.Object({ validator: Type.String({ minLength: 1, description: 'a .node address' }) });
const PAGE = pageQuery({ default: 100, cap: 100 });
const NOT_AN_ADDRESS = 'the path parameter is not a chain address';

function address(raw: string): string {
  if (!isAddress(raw)) throw badRequest(`"${raw}" is not a chain address`);
  return raw;
}

/** decisions.md §84: a node's and an address's staking are proven by their node and stake records. */
const nodeAndStake = (address: string): string[] => (isAddress(address) ? [nodes.stateKey(address), stakes.stateKey(address)] : []);

export const stakingInfoRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/staking/info/:address',
  summary: "an address's self-stake, delegations out and rewards (decisions.md §23, §37: zeros for an address with nothing bonded)",
  params: AddressParams,
  responses: { 200: StakingInfo, 400: NOT_AN_ADDRESS },
  proves: (req) => nodeAndStake(req.params.address),
});

export const validatorsRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/staking/validators',
  summary: 'every registered .node with its self-stake and what is delegated to it, by address',
  query: PAGE,
  responses: { 200: pageAnswer('validators', Type.Object({ ...NodeView.properties, delegated: Type.Integer({ minimum: 0, description: 'ucoin delegated to it' }), delegated_human: Type.String() })) },
});

export const delegationsToRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/staking/delegations/:validator',
  summary: 'the delegations to a validator, by delegator',
  params: ValidatorParams,
  query: PAGE,
  responses: { 200: Type.Object({ validator: Type.String(), ...pageAnswer('delegations', DelegationView).properties }), 400: NOT_AN_ADDRESS },
});

export const myDelegationsRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/staking/my-delegations/:address',
  summary: "an address's delegations, by validator",
  params: AddressParams,
  query: PAGE,
  responses: { 200: Type.Object({ address: Type.String(), ...pageAnswer('delegations', DelegationView).properties }), 400: NOT_AN_ADDRESS },
});

export const rewardsRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/staking/rewards/:address',
  summary: "an address's reward payouts, newest first (decisions.md §97: one record per payout)",
  params: AddressParams,
  query: pageQuery({ default: 100, cap: 100 }, { source: Type.Optional(Type.String({ description: `only payouts of this source: ${REWARD_SOURCES.join(', ')}` })) }),
  responses: { 200: Type.Object({ address: Type.String(), ...pageAnswer('rewards', RewardView).properties }), 400: `not a chain address, or a source other than ${REWARD_SOURCES.join(', ')}` },
});

export const slashingHistoryRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/slashing/history',
  summary: 'every slash, newest first (Node only in part 1)',
  query: PAGE,
  responses: { 200: pageAnswer('slashes', SlashView) },
  nodeOnly: true,
});

export const nodesRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/nodes',
  summary: 'every registered .node, by address',
  query: PAGE,
  responses: { 200: pageAnswer('nodes', NodeView) },
});

export const nodeRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/nodes/:address',
  summary: 'a registered .node',
  params: AddressParams,
  responses: { 200: NodeView, 400: NOT_AN_ADDRESS, 404: 'no node is registered at the address' },
  proves: (req) => nodeAndStake(req.params.address),
});

export const STAKING_ROUTES = [stakingInfoRoute, validatorsRoute, delegationsToRoute, myDelegationsRoute, rewardsRoute, slashingHistoryRoute, nodesRoute, nodeRoute];

export function stakingRoutes(routes: RouteTable, s: NodeServices, plugin: string): void {
  const at = <T>(fn: (ctx: QueryContext) => Promise<T>): Promise<T> => s.query.run(plugin, fn);

  // Five reads.
  routes.serve(stakingInfoRoute, (req) =>
    at(async (ctx) => {
      const a = address(req.params.address);
      const stake = await stakes.get(ctx.store, a);
      const out = (await delegatedBy(ctx.store, a)).amount;
      const rewards = (await rewardSummary(ctx.store, a)).total;
      const node = await nodes.get(ctx.store, a);
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
  );

  routes.serve(validatorsRoute, (req) =>
    at(async (ctx) => {
      const { limit, offset } = toPage(req.query);
      const rows = [];
      for (const n of await nodesPage(ctx.store, limit, offset)) {
        const delegated = (await delegatedTo(ctx.store, n.address)).amount;
        rows.push({ ...nodeView(n, await stakes.get(ctx.store, n.address), ctx.height), delegated, delegated_human: formatCoin(delegated) });
      }
      return countedPage('validators', rows, await nodeCount(ctx.store), limit, offset);
    }),
  );

  routes.serve(delegationsToRoute, (req) =>
    at(async (ctx) => {
      const v = address(req.params.validator);
      const { limit, offset } = toPage(req.query);
      const rows = (await delegationsTo(ctx.store, v, limit, offset)).map((d) => delegationView(v, d.delegator, d.record));
      return { validator: v, ...countedPage('delegations', rows, (await delegatedTo(ctx.store, v)).count, limit, offset) };
    }),
  );

  // Read through the delegator's own index (delegator/<address>/…), not by walking every delegation.
  routes.serve(myDelegationsRoute, (req) =>
    at(async (ctx) => {
      const a = address(req.params.address);
      const { limit, offset } = toPage(req.query);
      const rows = (await delegationsBy(ctx.store, a, limit, offset)).map((d) => delegationView(d.validator, a, d.record));
      return { address: a, ...countedPage('delegations', rows, (await delegatedBy(ctx.store, a)).count, limit, offset) };
    }),
  );

  routes.serve(rewardsRoute, (req) =>
    at(async (ctx) => {
      const a = address(req.params.address);
      const source = req.query.source;
      if (source !== undefined && !REWARD_SOURCES.includes(source as RewardSource)) throw badRequest(`source must be one of ${REWARD_SOURCES.join(', ')}`);
      const { limit, offset } = toPage(req.query);
      // Newest first, as the block and transaction lists are.
      const { rows, total } = await rewardsPage(ctx.store, a, source === undefined ? REWARD_SOURCES : [source as RewardSource], limit, offset);
      return { address: a, ...countedPage('rewards', rows.map(rewardView), total, limit, offset) };
    }),
  );

  routes.serve(slashingHistoryRoute, (req) =>
    at(async (ctx) => {
      const { limit, offset } = toPage(req.query);
      const { rows, total } = await slashPage(ctx.store, limit, offset);
      return countedPage('slashes', rows.map(slashView), total, limit, offset);
    }),
  );

  routes.serve(nodesRoute, (req) =>
    at(async (ctx) => {
      const { limit, offset } = toPage(req.query);
      const rows = [];
      for (const n of await nodesPage(ctx.store, limit, offset)) rows.push(nodeView(n, await stakes.get(ctx.store, n.address), ctx.height));
      return countedPage('nodes', rows, await nodeCount(ctx.store), limit, offset);
    }),
  );

  routes.serve(nodeRoute, (req) =>
    at(async (ctx) => {
      const a = address(req.params.address);
      const n = await nodes.get(ctx.store, a);
      if (!n) throw notFound(`node ${a} is not registered`);
      return nodeView(n, await stakes.get(ctx.store, a), ctx.height);
    }),
  );
}
