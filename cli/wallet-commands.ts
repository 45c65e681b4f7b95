import { Option, type Command } from 'commander';
import WebSocket from 'ws';
import { formatCoin } from '../kernel/codec/amount.js';
import { isAddress } from '../kernel/crypto/address.js';
import { readKeyFile } from '../kernel/crypto/keyfile.js';
import { nobleProvider } from '../kernel/crypto/noble-provider.js';
import { parseCliAmount } from './client/amount-text.js';
import { NodeClient, NodeRefusal, defaultRpc } from './client/node-client.js';
import { signTransferBody } from './client/transfer.js';

type Json = Record<string, unknown>;

/** What the account read answers (part 1, Account): the figures the verbs print. */
interface AccountView {
  readonly address: string;
  readonly balance: number;
  readonly balance_human: string;
  readonly nonce: number;
  readonly next_nonce: number;
}

interface TxView {
  readonly hash: string;
  readonly status: 'pending' | 'confirmed' | 'failed';
  readonly block?: number | null;
  readonly fee?: number;
  readonly fee_human?: string;
  readonly error?: string;
}

function out(line: string): void {
  process.stdout.write(line + '\n');
}

function json(value: unknown): void {
  out(JSON.stringify(value, null, 2));
}

function checkAddress(flag: string, text: string): string {
  if (!isAddress(text)) throw new Error(`${flag} "${text}" is not a chain address (chain:<15 hex>.human, chain:<name>.node, …)`);
  return text;
}

function safeUcoin(what: string, v: bigint): bigint {
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`${what} ${formatCoin(v)} is larger than a request body can carry (${Number.MAX_SAFE_INTEGER} ucoin)`);
  return v;
}

function amountFlag(text: string): bigint {
  const v = parseCliAmount(text);
  if (v === null) throw new Error(`--amount "${text}": give COIN as decimal text (1.5, up to 6 decimals) or ucoin with its unit (1500000ucoin)`);
  if (v === 0n) throw new Error('--amount must be more than 0');
  return safeUcoin('--amount', v);
}

/** Polls a transaction until it is in a block (or failed there): what `send` and `faucet` wait for. */
async function waitForBlock(client: NodeClient, hash: string, timeoutMs: number): Promise<TxView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const tx = await client.get<TxView>(`/api/v1/transactions/${hash}`);
      if (tx.status !== 'pending') return tx;
    } catch (e) {
      // A node that has not indexed the submission yet answers 404 for a moment.
      if (!(e instanceof NodeRefusal && e.status === 404)) throw e;
    }
    if (Date.now() > deadline) throw new Error(`${hash} was not in a block within ${timeoutMs / 1000} s; look again with: chain tx ${hash}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function timeoutFlag(text: string): number {
  if (!/^\d{1,6}$/.test(text)) throw new Error(`--timeout must be whole seconds, got "${text}"`);
  return Number(text) * 1000;
}

interface ReadFlags {
  readonly rpc: string;
  readonly json: boolean;
}

/**
 * The verbs a person uses the chain with, from a key file alone: `balance`, `send`, `tx`, `faucet`
 * and `watch`. Amounts typed are COIN as decimal text; amounts printed are the node's `*_human`
 * strings. A refusal prints the node's own message and status and exits 1; `--json` prints the
 * node's answer for scripts.
 */
export function registerWalletCommands(program: Command): void {
  const rpcOption = (): Option => new Option('--rpc <url>', 'node RPC or gateway URL (default: CHAIN_RPC, else http://127.0.0.1:9933)').default(defaultRpc(), 'CHAIN_RPC or the local node');
  const jsonOption = (): Option => new Option('--json', 'print the node\'s answer as JSON').default(false);

  program
    .command('balance <address>')
    .description('an account\'s balance and nonce')
    .addOption(rpcOption())
    .addOption(jsonOption())
    .action(async (address: string, f: ReadFlags) => {
      const a = await new NodeClient(f.rpc).get<AccountView & Json>(`/api/v1/accounts/${encodeURIComponent(checkAddress('address', address))}`);
      if (f.json) return json(a);
      out(`${a.address}  ${a.balance_human}  (${a.balance} ucoin, nonce ${a.nonce})`);
    });

  program
    .command('send')
    .description('sign a transfer with a key file, submit it, wait for its block and print the confirmed status, fee and new balance')
    .requiredOption('--key <file>', 'key file of the sender (chain keys generate --out)')
    .requiredOption('--to <address>', 'recipient address')
    .requiredOption('--amount <amount>', 'COIN as decimal text (1.5) or ucoin with its unit (1500000ucoin)')
    .option('--gas-price <ucoin>', 'gas price (default: the node\'s base fee)')
    .option('--no-wait', 'print the transaction hash once the node accepts it, without waiting for its block')
    .option('--timeout <seconds>', 'how long to wait for the block', '60')
    .addOption(rpcOption())
    .addOption(jsonOption())
    .action(async (f: { key: string; to: string; amount: string; gasPrice?: string; wait: boolean; timeout: string } & ReadFlags) => {
      const to = checkAddress('--to', f.to);
      const value = amountFlag(f.amount);
      const timeout = timeoutFlag(f.timeout);
      const key = readKeyFile(f.key, nobleProvider);
      const client = new NodeClient(f.rpc);
      const [status, account, estimate] = await Promise.all([client.get('/api/v1/status'), client.get<AccountView>(`/api/v1/accounts/${encodeURIComponent(key.file.address)}`), client.get<{ base_fee: number }>('/api/v1/gas/estimate')]);
      if (f.gasPrice !== undefined && !/^[1-9]\d{0,15}$/.test(f.gasPrice)) throw new Error(`--gas-price must be a positive integer in ucoin, got "${f.gasPrice}"`);
      const gasPrice = f.gasPrice !== undefined ? BigInt(f.gasPrice) : BigInt(estimate.base_fee);
      const body = signTransferBody(key, { chainId: String(status.chain_id ?? ''), to, value, nonce: BigInt(account.next_nonce), gasPrice }, nobleProvider);
      const submitted = await client.post<{ tx_hash: string; status: string; estimated_block?: number }>('/api/v1/transactions', body);
      if (!f.wait) {
        if (f.json) return json(submitted);
        return out(`${submitted.tx_hash} ${submitted.status}${submitted.estimated_block !== undefined ? ` (estimated block ${submitted.estimated_block})` : ''}`);
      }
      const tx = await waitForBlock(client, submitted.tx_hash, timeout);
      const after = await client.get<AccountView>(`/api/v1/accounts/${encodeURIComponent(key.file.address)}`);
      if (f.json) json({ tx_hash: submitted.tx_hash, status: tx.status, block: tx.block ?? null, fee: tx.fee, fee_human: tx.fee_human, ...(tx.error ? { error: tx.error } : {}), value: Number(value), value_human: formatCoin(value), to, balance: after.balance, balance_human: after.balance_human });
      else {
        out(`${submitted.tx_hash} ${tx.status} in block ${tx.block ?? '?'}: ${formatCoin(value)} to ${to}, fee ${tx.fee_human ?? `${tx.fee} ucoin`}`);
        if (tx.error) out(`error: ${tx.error}`);
        out(`balance of ${key.file.address}: ${after.balance_human}`);
      }
      if (tx.status !== 'confirmed') process.exitCode = 1;
    });

  program
    .command('tx <hash>')
    .description('a transaction: its status, block, amount, fee (and the reason when it failed)')
    .addOption(rpcOption())
    .addOption(jsonOption())
    .action(async (hash: string, f: ReadFlags) => {
      if (!/^0x[0-9a-fA-F]{64}$/.test(hash)) throw new Error(`"${hash}" is not a transaction hash (0x and 64 hex characters)`);
      const tx = await new NodeClient(f.rpc).get<TxView & Json>(`/api/v1/transactions/${hash.toLowerCase()}`);
      if (f.json) return json(tx);
      out(`${tx.hash}  ${tx.status}${tx.block ? ` in block ${tx.block}` : ''}`);
      out(`  ${String(tx.type ?? 'transfer')}: ${String(tx.value_human ?? '')} from ${String(tx.from)} to ${String(tx.to)}`);
      out(`  fee ${tx.fee_human ?? '-'}${tx.error ? `; error: ${tx.error}` : ''}`);
    });

  program
    .command('faucet')
    .description('test networks: credit the key file\'s address from the faucet and wait for the credit\'s block')
    .requiredOption('--key <file>', 'key file whose address receives the coins (its public key is bound to it)')
    .option('--amount <amount>', 'COIN as decimal text or ucoin with its unit (default: the faucet\'s amount)')
    .option('--no-wait', 'do not wait for the credit\'s block')
    .option('--timeout <seconds>', 'how long to wait for the block', '60')
    .addOption(rpcOption())
    .addOption(jsonOption())
    .action(async (f: { key: string; amount?: string; wait: boolean; timeout: string } & ReadFlags) => {
      const key = readKeyFile(f.key, nobleProvider);
      const amount = f.amount === undefined ? undefined : amountFlag(f.amount);
      const timeout = timeoutFlag(f.timeout);
      const client = new NodeClient(f.rpc);
      const credit = await client.post<{ tx_hash: string; amount: number; amount_human: string } & Json>('/api/v1/faucet', { address: key.file.address, public_key: key.file.public_key, ...(amount !== undefined ? { amount: Number(amount) } : {}) });
      if (!f.wait) return f.json ? json(credit) : out(`${credit.tx_hash} pending: ${credit.amount_human} to ${key.file.address}`);
      const tx = await waitForBlock(client, credit.tx_hash, timeout);
      const after = await client.get<AccountView>(`/api/v1/accounts/${encodeURIComponent(key.file.address)}`);
      if (f.json) json({ ...credit, status: tx.status, block: tx.block ?? null, balance: after.balance, balance_human: after.balance_human });
      else out(`${credit.tx_hash} ${tx.status} in block ${tx.block ?? '?'}: ${credit.amount_human} to ${key.file.address}; balance ${after.balance_human}`);
      if (tx.status !== 'confirmed') process.exitCode = 1;
    });

  program
    .command('watch <address>')
    .description('follow an address\'s balance live over the gateway\'s WebSocket (subscribe_balance); prints the balance, then every change')
    .option('--gateway <url>', 'gateway URL (default: CHAIN_GATEWAY, else http://127.0.0.1:3000)', process.env.CHAIN_GATEWAY || 'http://127.0.0.1:3000')
    .option('--count <n>', 'exit after printing this many lines')
    .addOption(jsonOption())
    .action(async (address: string, f: { gateway: string; count?: string; json: boolean }) => {
      checkAddress('address', address);
      if (f.count !== undefined && !/^[1-9]\d{0,6}$/.test(f.count)) throw new Error(`--count must be a positive integer, got "${f.count}"`);
      await watchBalance(f.gateway, address, f.count === undefined ? Infinity : Number(f.count), f.json);
    });
}

/** Subscribes and prints the first balance and each change until `count` lines; rejects when the socket fails. */
function watchBalance(gateway: string, address: string, count: number, asJson: boolean): Promise<void> {
  const url = `${gateway.replace(/\/+$/, '').replace(/^http/, 'ws')}/ws`;
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    let printed = 0;
    let last: { balance: string; nonce: string } | undefined;
    let done = false;
    const finish = (err?: Error): void => {
      if (done) return;
      done = true;
      ws.close();
      if (err) reject(err);
      else resolve();
    };
    ws.on('open', () => ws.send(JSON.stringify({ type: 'subscribe_balance', address })));
    ws.on('error', (e) => finish(new Error(`cannot reach the gateway's WebSocket at ${url}: ${e.message} (--gateway or CHAIN_GATEWAY)`)));
    ws.on('close', () => finish(new Error(`the gateway closed the WebSocket at ${url}`)));
    ws.on('message', (data) => {
      let msg: Json;
      try {
        msg = JSON.parse(String(data)) as Json;
      } catch {
        return;
      }
      if (msg.type === 'error' && (msg.address === undefined || msg.address === address)) return finish(new Error(`the gateway refused the subscription: ${String(msg.error)}`));
      if (msg.type !== 'balance' || msg.address !== address) return;
      const now = { balance: String(msg.balance), nonce: String(msg.nonce) };
      if (last !== undefined && last.balance === now.balance && last.nonce === now.nonce) return;
      const delta = last === undefined ? '' : `  (${BigInt(now.balance) >= BigInt(last.balance) ? '+' : '-'}${formatCoin(BigInt(now.balance) > BigInt(last.balance) ? BigInt(now.balance) - BigInt(last.balance) : BigInt(last.balance) - BigInt(now.balance))})`;
      last = now;
      out(asJson ? JSON.stringify(msg) : `${new Date().toISOString()}  ${address}  ${String(msg.balance_human)}${delta}  nonce ${now.nonce}`);
      if (++printed >= count) finish();
    });
  });
}
