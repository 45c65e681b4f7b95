import { badRequest, conflict, defineOperation, type ChainError, type ReadContext, type ReadonlyStore, type Store, type TxContext } from '../../../kernel/sdk.js';
import type { Static } from '@sinclair/typebox';
import { assetIssued } from '../events.js';
import { assetId, TARGET } from '../ids.js';
import { bump, listOf, mainBalance, setMainBalance, type Asset } from '../ledger.js';
import { MAX_AMOUNT } from '../math.js';
import { PARAMS } from '../params.js';
import { assetOpSigning } from '../psig.js';
import { nameProblem, symbolProblem } from '../rules.js';
import { IssueBody } from '../schemas.js';
import { assets, issueOrder, issuerAssets, symbols } from '../store.js';

type Body = Static<typeof IssueBody>;

export const ISSUE_GAS = 60;

/** The asset a symbol belongs to, if any. */
async function holderOf(store: ReadonlyStore, symbol: string): Promise<Asset | undefined> {
  if (symbolProblem(symbol) !== null) return undefined;
  const held = await symbols.get(store, symbol);
  return held === undefined ? undefined : assets.get(store, held.id);
}

/** What an issue of `symbol` by `issuer` burns: `asset_issue_fee` for a new asset, nothing for a reissue of the issuer's own (§56). */
async function issueFeeDue(ctx: ReadContext, symbol: string, issuer: string): Promise<bigint> {
  const held = await holderOf(ctx.store, symbol);
  return held !== undefined && held.issuer === issuer ? 0n : ctx.params.get(PARAMS.issueFee);
}

/** The fields a reissue must repeat (§56: the message names the field). */
const FIXED_FIELDS = ['name', 'decimals', 'max_supply', 'reissuable', 'reissue_unlock_height'] as const;

function reissueProblem(held: Asset, b: Body, height: number): ChainError | undefined {
  if (!held.reissuable) return badRequest(`asset ${held.symbol} (${held.id}) is not reissuable`);
  if (height < held.reissue_unlock_height) return badRequest(`asset ${held.symbol} may be reissued from height ${held.reissue_unlock_height} (reissue_unlock_height); this is height ${height}`);
  for (const f of FIXED_FIELDS) {
    const stored = f === 'max_supply' ? Number(held.max_supply) : held[f];
    if (b[f] !== stored) return badRequest(`a reissue repeats the asset's fields: ${f} is ${JSON.stringify(stored)}, not ${JSON.stringify(b[f])}`);
  }
  if (b.initial === 0) return badRequest('a reissue mints at least 1 unit: initial is 0');
  if (held.supply + BigInt(b.initial) > held.max_supply) return badRequest(`supply ${held.supply} + initial ${b.initial} would exceed max_supply ${held.max_supply}`);
  return undefined;
}

/** Every rule of §55–56, judged on the state `ctx` reads; the issue fee against `available` ucoin. */
async function issueProblem(ctx: ReadContext, b: Body, actor: string, available: bigint): Promise<ChainError | undefined> {
  const bad = symbolProblem(b.symbol) ?? nameProblem(b.name);
  if (bad) return badRequest(bad);
  const maxDecimals = await ctx.params.get(PARAMS.maxDecimals);
  if (BigInt(b.decimals) > maxDecimals) return badRequest(`decimals ${b.decimals} is above asset_max_decimals ${maxDecimals}`);
  if (b.initial > b.max_supply) return badRequest(`initial ${b.initial} is above max_supply ${b.max_supply}`);
  const held = await holderOf(ctx.store, b.symbol);
  if (held !== undefined) {
    if (held.issuer !== actor) return conflict(`symbol ${b.symbol} is taken by ${held.id}`);
    return reissueProblem(held, b, ctx.height);
  }
  const fee = await ctx.params.get(PARAMS.issueFee);
  if (available < fee) return badRequest(`insufficient balance for asset_issue_fee: ${available} ucoin available, the fee is ${fee} ucoin (besides the operation fee)`);
  return undefined;
}

export const issueAsset = defineOperation({
  name: 'issue_asset',
  description: 'issues a new asset (burning asset_issue_fee), or reissues the signer\'s own asset of that symbol',
  routes: [{ method: 'POST', path: '/api/v1/assets/issue' }],
  schema: IssueBody,
  signsFor: TARGET,
  value: 'initial',
  valueUnit: (b) => `asset:${b.symbol}`,
  gas: ISSUE_GAS,
  signing: assetOpSigning(),
  debits: (ctx, op) => issueFeeDue(ctx, op.body.symbol, op.actor),
  // At admission the fee of the operation is still to be charged, so the issue fee is judged
  // against the balance net of it in checkTx (index.ts); in the block the operation fee is gone.
  async check(ctx, op) {
    return issueProblem(ctx, op.body, op.actor, (await ctx.accounts.getCore(op.signer.account)).balance);
  },
  async execute(ctx, op) {
    const b = op.body;
    const initial = BigInt(b.initial);
    const held = await holderOf(ctx.store, b.symbol);
    let record: Asset;
    let fee = 0n;
    if (held !== undefined) {
      record = { ...held, supply: held.supply + initial };
    } else {
      fee = await ctx.params.get(PARAMS.issueFee);
      await ctx.burn(op.signer.account, fee);
      const id = assetId(op.actor, b.symbol, b.issue_nonce);
      record = {
        id,
        symbol: b.symbol,
        name: b.name,
        decimals: b.decimals,
        issuer: op.actor,
        supply: initial,
        max_supply: BigInt(b.max_supply),
        burned: 0n,
        reissuable: b.reissuable,
        reissue_unlock_height: b.reissue_unlock_height,
        issue_nonce: b.issue_nonce,
        issued_height: ctx.block.height,
        tx_hash: op.txHash,
      };
      await listNew(ctx, record);
    }
    if (record.supply > MAX_AMOUNT) throw badRequest(`supply would exceed ${MAX_AMOUNT}`);
    assets.set(ctx.store, record.id, record);
    await setMainBalance(ctx.store, op.actor, record.id, (await mainBalance(ctx.store, op.actor, record.id)) + initial);
    assetIssued.emit(ctx, { asset_id: record.id, symbol: record.symbol, issuer: op.actor, amount: initial, supply: record.supply, reissue: held !== undefined, fee_burned: fee });
  },
});

/** A new asset joins the symbol table and the asset lists. */
async function listNew(ctx: TxContext, a: Asset): Promise<void> {
  const store: Store = ctx.store;
  symbols.set(store, a.symbol, { id: a.id });
  issueOrder.set(store, a.issued_height, a.id, {});
  issuerAssets.set(store, a.issuer, a.issued_height, a.id, {});
  await bump(store, listOf.assets, 1);
  await bump(store, listOf.issuer(a.issuer), 1);
}

/**
 * For checkTx: the issue fee judged against the balance left once the operation's own fee is
 * paid (§56: "a balance below both: 400"). The signing account of a `.human` issuer is its own.
 */
export async function issueFeeProblemAtAdmission(ctx: ReadContext, symbol: string, issuer: string, operationFee: bigint): Promise<ChainError | undefined> {
  const due = await issueFeeDue(ctx, symbol, issuer);
  if (due === 0n) return undefined;
  const balance = (await ctx.accounts.getCore(issuer)).balance;
  return balance < due + operationFee ? badRequest(`insufficient balance: ${balance} ucoin, below asset_issue_fee ${due} plus the operation fee ${operationFee}`) : undefined;
}
