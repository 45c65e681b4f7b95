import { formatCoin } from '../../kernel/codec/amount.js';
import { shardOf } from '../../kernel/crypto/fnv.js';
import { shardView } from '../../kernel/sdk.js';
import { contractAddress, DEPLOY_ADDRESS } from '../../plugins/contracts/public.js';
import { amountToUcoin } from './amount.js';
import type { SessionKey } from './config.js';
import { isRecord, ToolFailure } from './gateway-client.js';
import { heldNeedsParams, heldReport, holdParamsOf } from './held.js';
import type { ToolContext, ToolDefinition } from './read-tools.js';
import { signWrite } from './sign.js';
import type { INPUTS } from './inputs.js';

const define = <N extends keyof typeof INPUTS>(d: ToolDefinition<N>): ToolDefinition<N> => d;

/** decisions.md §78: a write without a session key answers this, after no request at all. */
export function readOnlyRefusal(tool: string): string {
  return `${tool} needs a session key: CHAIN_MCP_CONFIG has no session_pk and sk_seed_hex (read-only)`;
}

interface Write {
  readonly to: string;
  readonly value: bigint;
  readonly data?: string;
}

/** An integer field of a 200 answer, or a failure naming the route and the field. */
function integerField(answer: unknown, field: string, route: string): bigint {
  const v = isRecord(answer) ? answer[field] : undefined;
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  throw new ToolFailure(`GET ${route} → 200 the answer has no integer ${field}`);
}

/** What a write needs of GET /api/v1/network/status: the chain id it signs for, and (a deploy) the network's shard count. */
interface NetworkFacts {
  readonly chainId: string;
  readonly shardCount: number;
}

/** Checked before anything is signed or sent, so a deploy never lands without the tool knowing its address. */
function networkFactsOf(status: unknown, needsShardCount: boolean): NetworkFacts {
  const s = isRecord(status) ? status : {};
  if (typeof s.chain_id !== 'string' || s.chain_id === '') throw new ToolFailure('GET /api/v1/network/status → 200 the answer has no chain_id yet (the gateway has not reached its node): try again');
  const count = typeof s.shard_count === 'bigint' ? Number(s.shard_count) : s.shard_count;
  if (typeof count === 'number' && Number.isSafeInteger(count) && count >= 1) return { chainId: s.chain_id, shardCount: count };
  if (needsShardCount) throw new ToolFailure('GET /api/v1/network/status → 200 the answer has no shard_count (a positive integer), which the contract\'s address depends on: nothing was sent');
  return { chainId: s.chain_id, shardCount: 1 };
}

/**
 * decisions.md §27, §71: the address the chain gives the contract `account` deploys in `txHash`.
 * The deploy runs on the deployer's shard, which keeps §27's address when it owns it and else
 * moves it by the k-rule: the kernel's one rule (`contractAddressOn`, through the contracts
 * plugin's `contractAddress`), with the deployer's shard of the network's `shard_count`.
 */
export function deployedAddress(account: string, txHash: string, shardCount: number): string {
  return contractAddress(account, txHash, shardView(shardOf(account, shardCount), shardCount));
}

/**
 * decisions.md §80: reads `next_nonce`, `base_fee` and `chain_id`, signs `ch-tx-v4` with the
 * session key and sends one `POST /api/v1/transactions`. No retry: a refused write is reported
 * with the node's status and message. The result is §80's object.
 */
async function submit(ctx: ToolContext, session: SessionKey, account: string, w: Write): Promise<{ result: Record<string, unknown>; answer: Record<string, unknown>; network: NetworkFacts }> {
  const accountPath = `/api/v1/accounts/${account}`;
  const nonce = integerField(await ctx.gateway.get(accountPath), 'next_nonce', accountPath);
  const gasPrice = integerField(await ctx.gateway.get('/api/v1/gas/estimate'), 'base_fee', '/api/v1/gas/estimate');
  const network = networkFactsOf(await ctx.gateway.get('/api/v1/network/status'), w.to === DEPLOY_ADDRESS);
  const body = signWrite(session, { chainId: network.chainId, from: account, to: w.to, value: w.value, nonce, gasPrice, ...(w.data !== undefined ? { data: w.data } : {}) });
  const answer = await ctx.gateway.post('/api/v1/transactions', body);
  const a = isRecord(answer) ? answer : {};
  return {
    answer: a,
    network,
    result: {
      tx_hash: a.tx_hash,
      status: a.status,
      estimated_block: a.estimated_block,
      from: account,
      to: w.to,
      value: Number(w.value),
      value_human: formatCoin(w.value),
      nonce: Number(nonce),
      gas_price: Number(gasPrice),
      response: answer,
    },
  };
}

/** The session key and the account it signs for, or the read-only refusal. */
function sessionOf(ctx: ToolContext, tool: string): { session: SessionKey; account: string } {
  const session = ctx.config.session;
  const account = ctx.config.account;
  if (session === undefined || account === undefined) throw new ToolFailure(readOnlyRefusal(tool));
  return { session, account };
}

const SESSION =
  'Signed by the session key in CHAIN_MCP_CONFIG for its account; every validator holds it to the grant\'s scope (destinations), cap (total ucoin it may move) and expiry: beyond them the node answers 401 and nothing moves. The tool answers at admission (status pending) and does not wait for the block.';

/** The three writing tools of part 1 and decisions.md §80 (a session key required). */
export const WRITE_TOOLS = [
  define({
    name: 'ch_transfer',
    title: 'Transfer',
    writes: true,
    description: `Sends COIN to an address (POST /api/v1/transactions, signed ch-tx-v4). amount_nro is in COIN and converted exactly to ucoin. Result: tx_hash, status, estimated_block, from, to, value (ucoin), value_human, nonce, gas_price, response (the node's answer), and held: null, or how the sentinel's policy layer holds the transfer (releases "automatic" after release_after_blocks unless the owner cancels, or "owner_confirmation": the owner must confirm with the account's main key within refund_after_blocks, else it is refunded), with its score and a message to relay. ${SESSION}`,
    async run(ctx, a) {
      const { session, account } = sessionOf(ctx, 'ch_transfer');
      const amount = amountToUcoin(a.amount_nro);
      if (!amount.ok) throw new ToolFailure(`amount_nro: ${amount.reason}`);
      const { result, answer } = await submit(ctx, session, account, { to: a.to, value: amount.ucoin });
      let held: unknown = null;
      if (isRecord(answer.held)) {
        const params = heldNeedsParams(answer.held) ? holdParamsOf(await ctx.gateway.get('/api/v1/governance/params')) : undefined;
        held = heldReport(String(answer.tx_hash), a.to, answer.held, params);
      }
      return { ...result, held };
    },
  }),
  define({
    name: 'ch_call_contract',
    title: 'Call a contract',
    writes: true,
    description: `Calls a function of a contract in a transaction (POST /api/v1/transactions to the .app, data {"function","args"} as compact JSON, signed ch-tx-v4), optionally attaching value in ucoin. The call runs when its block executes: read its outcome (confirmed or failed, return_data) with ch_get_txs. Result: tx_hash, status, estimated_block, from, to, value, nonce, gas_price, response. ${SESSION}`,
    async run(ctx, a) {
      const { session, account } = sessionOf(ctx, 'ch_call_contract');
      const data = JSON.stringify({ function: a.function, args: a.args ?? {} });
      return (await submit(ctx, session, account, { to: a.to, value: BigInt(a.value ?? 0), data })).result;
    },
  }),
  define({
    name: 'ch_deploy',
    title: 'Deploy a contract',
    writes: true,
    description: `Deploys a WebAssembly contract (POST /api/v1/transactions to chain:system.deploy, data the deploy fields as compact JSON, signed ch-tx-v4): from bytecode_hex, or from a template's bytecode (GET /api/v1/templates/:template). Every validator runs the analyzer gate on it like any deploy (a refusal is 403). Result: contract_address (chain:<10 hex>.app, decisions.md §27), tx_hash, status, estimated_block, from, to, value, nonce, gas_price, response. ${SESSION}`,
    async run(ctx, a) {
      const { session, account } = sessionOf(ctx, 'ch_deploy');
      if (a.bytecode_hex === undefined && a.template === undefined) throw new ToolFailure('bytecode_hex: give bytecode_hex or template (a template id whose bytecode is deployed)');
      let bytecode = a.bytecode_hex;
      if (bytecode === undefined) {
        const path = `/api/v1/templates/${encodeURIComponent(a.template!)}`;
        const tpl = await ctx.gateway.get(path);
        if (!isRecord(tpl) || typeof tpl.bytecode_hex !== 'string') throw new ToolFailure(`GET ${path} → 200 the template has no bytecode_hex`);
        bytecode = tpl.bytecode_hex;
      }
      const fields = { bytecode_hex: bytecode, name: a.name, description: a.description, template: a.template, init_args: a.init_args };
      const data = JSON.stringify(fields);
      const { result, network } = await submit(ctx, session, account, { to: DEPLOY_ADDRESS, value: 0n, data });
      const txHash = result.tx_hash;
      return { contract_address: typeof txHash === 'string' ? deployedAddress(account, txHash, network.shardCount) : null, ...result };
    },
  }),
] as const;
