import { badRequest, ChainError } from '../../kernel/errors.js';
import type { ReadContext, TxContext } from '../../kernel/hooks.js';
import type { Tx } from '../../kernel/chain/types.js';
import { parseHex } from '../../kernel/codec/hex.js';
import { isAddress } from '../../kernel/crypto/address.js';
import { ML_DSA65_PUBLIC_KEY_BYTES } from '../../kernel/crypto/provider.js';
import { TEST_NETWORK_ONLY } from '../../kernel/node/test-network-routes.js';

/** The system transaction a faucet request becomes; validated identically by every validator. */
export const FAUCET_TX = 'faucet';
export const FAUCET_SENDER = 'chain:system.faucet';

export interface FaucetCredit {
  readonly address: string;
  readonly publicKey: string;
  readonly amount: bigint;
}

export function readCredit(tx: Tx): FaucetCredit {
  const b = tx.body;
  if (typeof b.address !== 'string' || typeof b.public_key !== 'string' || typeof b.amount !== 'number') throw badRequest('malformed faucet transaction');
  return { address: b.address, publicKey: b.public_key, amount: BigInt(b.amount) };
}

/** The checks of a faucet credit, shared by the REST endpoint (early answer) and checkTx (consensus). */
export async function checkCredit(ctx: Pick<ReadContext, 'env' | 'accounts'>, credit: FaucetCredit, maxAmount: bigint): Promise<ChainError | undefined> {
  if (ctx.env !== 'testnet') return new ChainError(403, TEST_NETWORK_ONLY.faucet.message);
  if (!isAddress(credit.address)) return badRequest(`address: "${credit.address}" is not a chain address`);
  if (!parseHex(credit.publicKey, ML_DSA65_PUBLIC_KEY_BYTES)) return badRequest(`public_key must be ${ML_DSA65_PUBLIC_KEY_BYTES * 2} lowercase hex characters (ML-DSA-65)`);
  if (credit.publicKey !== credit.publicKey.toLowerCase()) return badRequest('public_key must be lowercase hex');
  if (credit.amount < 1n || credit.amount > maxAmount) return badRequest(`amount must be between 1 and ${maxAmount} ucoin`);
  const acct = await ctx.accounts.get(credit.address);
  if (acct.public_key !== undefined && acct.public_key !== credit.publicKey) return new ChainError(409, `${credit.address} is already bound to another public key`);
  return undefined;
}

export async function applyCredit(ctx: TxContext, credit: FaucetCredit): Promise<void> {
  await ctx.accounts.credit(credit.address, credit.amount);
  // Recorded even for a key-derived address: the account then shows as verified, and no other
  // key can be bound to it later.
  const acct = await ctx.accounts.get(credit.address);
  if (acct.public_key === undefined) await ctx.accounts.bindKey(credit.address, credit.publicKey);
  ctx.emit({ type: 'faucet', data: { address: credit.address, amount: credit.amount.toString(), tx_hash: ctx.tx.hash } });
}
