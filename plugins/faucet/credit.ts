import { badRequest, ChainError, conflict, deriveAddress, foreignSenderError, isAddress, isKeyDerivedAddress, ML_DSA65_PUBLIC_KEY_BYTES, parseHex, TEST_NETWORK_ONLY, type ReadContext, type Tx, type TxContext } from '../../kernel/sdk.js';
import { faucetCredited } from './events.js';

/** The system transaction a faucet request becomes; validated identically by every validator. */
export const FAUCET_TX = 'faucet';
export const FAUCET_SENDER = 'chain:system.faucet';

export interface FaucetCredit {
  readonly address: string;
  readonly publicKey: string;
  readonly amount: bigint;
}

/** The chain's bound on one credit: the block enforces it, whatever a node's own `max_amount` option says. */
export const FAUCET_MAX_PARAM = 'faucet_max_amount';

export function readCredit(tx: Tx): FaucetCredit {
  const b = tx.body;
  if (typeof b.address !== 'string' || typeof b.public_key !== 'string' || typeof b.amount !== 'number' || !Number.isSafeInteger(b.amount)) throw badRequest('malformed faucet transaction');
  // The transaction's own to/value are what lists and totals show: they must be the credit's.
  if (tx.to !== b.address || tx.value !== BigInt(b.amount)) throw badRequest('malformed faucet transaction: to and value must be the credited address and amount');
  return { address: b.address, publicKey: b.public_key, amount: BigInt(b.amount) };
}

/**
 * The checks of a faucet credit at admission (the REST endpoint's early answer and checkTx): the
 * network is a test network, the amount within this node's `max_amount`, and the rules below.
 *
 * The faucet binds a key only to the address derived from it (decisions.md §3): binding a
 * stranger's key to any other address would hand that address to the stranger. An address
 * already bound to the same key (a name its owner registered) is credited without rebinding;
 * every other binding comes from the operation that owns it (names, nodes, rotation).
 */
export async function checkCredit(ctx: Pick<ReadContext, 'env' | 'accounts' | 'shard'>, credit: FaucetCredit, maxAmount: bigint): Promise<ChainError | undefined> {
  if (ctx.env !== 'testnet') return new ChainError(403, TEST_NETWORK_ONLY.faucet.message);
  return creditProblem(ctx, credit, maxAmount);
}

/** The rules every validator judges alike from the chain alone (no node configuration). */
async function creditProblem(ctx: Pick<ReadContext, 'accounts' | 'shard'>, credit: FaucetCredit, maxAmount: bigint): Promise<ChainError | undefined> {
  if (!isAddress(credit.address)) return badRequest(`address: "${credit.address}" is not a chain address`);
  // decisions.md §73: the faucet credits only an address this shard owns (400 with `shard`).
  if (!ctx.shard.owns(credit.address)) return foreignSenderError(ctx.shard, 'address', credit.address);
  const key = parseHex(credit.publicKey, ML_DSA65_PUBLIC_KEY_BYTES);
  if (!key) return badRequest(`public_key must be ${ML_DSA65_PUBLIC_KEY_BYTES * 2} lowercase hex characters (ML-DSA-65)`);
  if (credit.publicKey !== credit.publicKey.toLowerCase()) return badRequest('public_key must be lowercase hex');
  if (credit.amount < 1n || credit.amount > maxAmount) return badRequest(`amount must be between 1 and ${maxAmount} ucoin`);
  const derived = deriveAddress(key);
  const bound = (await ctx.accounts.get(credit.address)).public_key;
  if (bound !== undefined && bound !== credit.publicKey) return conflict(`${credit.address} is already bound to another public key`);
  if (credit.address === derived || bound === credit.publicKey) return undefined;
  if (isKeyDerivedAddress(credit.address)) {
    return conflict(`${credit.address} is derived from another public key; this public_key's address is ${derived}`);
  }
  return badRequest(`the faucet binds a public key only to the address derived from it: ${derived}, not ${credit.address}`);
}

/**
 * The credit in the block: the rules again (a proposer may skip checkTx), judged from the chain
 * alone: the bound is the chain's `faucet_max_amount`, not a node's option, so validators
 * configured differently never judge one block differently.
 */
export async function applyCredit(ctx: TxContext, credit: FaucetCredit): Promise<void> {
  const problem = await creditProblem(ctx, credit, await ctx.params.get(FAUCET_MAX_PARAM));
  if (problem) throw problem;
  await ctx.accounts.credit(credit.address, credit.amount);
  // Recorded even for a key-derived address: the account then shows as verified, and no other
  // key can be bound to it later.
  const acct = await ctx.accounts.get(credit.address);
  if (acct.public_key === undefined) await ctx.accounts.bindKey(credit.address, credit.publicKey);
  faucetCredited.emit(ctx, { address: credit.address, amount: credit.amount, tx_hash: ctx.tx.hash });
}
