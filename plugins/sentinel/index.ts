import { ConfigError, definePlugin, fractionText, operationOf, type AdmissionContext, type ChainError, type NodeServices, type ReadonlyStore, type SignerKind, type Tx, type TxContext } from '../../kernel/sdk.js';
import { fraction, loadModel } from './model.js';
import { BlockScoringParams, SENTINEL_PARAMS, heldView, holdDecision, notHoldable, rejection, scoringParams, verdictOf, warningFields } from './policy.js';
import { SentinelOptionsSchema } from './schemas.js';
import { SENTINEL_STORES, appendRecent, heldTransfers, holdsByAddress, holdsDue, recentTransfers, registeredModel, type HeldTransfer } from './store.js';
import { SENTINEL_EVENTS, txAnomaly, txHeld } from './events.js';
import { cancelHeld, confirmHeld, resolveHold } from './operations/held.js';
import { trustAdd, trustRemove } from './operations/trust.js';
import { SENTINEL_ROUTES, sentinelRoutes } from './routes.js';
import { SENTINEL_SUPPLY } from './supply.js';

/**
 * The signer's kind as authorization judged it at admission (`Tx.signerKind`), as the block's
 * `beforeTransfer` will see it: a record's owner signing for it is `main`, a delegate `session`.
 * Admission sets it on every signed transaction before checkTx runs.
 */
function signedBy(tx: Tx): SignerKind {
  if (tx.signerKind === undefined) throw new Error(`sentinel: transaction ${tx.hash} reached checkTx without the signer's kind admission sets`);
  return tx.signerKind;
}

interface SentinelOptions {
  weights_hash: string;
  weights_file?: string;
}

/**
 * Whether a plain transaction's value is a payment that may wait, as admission can tell: no
 * `data` (a call's value, a deploy's endowment, is acted on at once). The block knows for sure:
 * the kernel marks each move it shows `beforeTransfer` (`TransferIntent.holdable`).
 */
function payment(tx: Tx): boolean {
  return tx.data === undefined;
}

/**
 * The sender's nonce as the scorer's feature: a plain transaction's own (no read, no await); for
 * an operation (whose nonce is a millisecond timestamp) the account's next one.
 */
function scoredNonce(ctx: TxContext, from: string): bigint | Promise<bigint> {
  return operationOf(ctx.tx) === undefined ? ctx.tx.nonce : ctx.accounts.getCore(from).then((a) => a.nonce + 1n);
}

/**
 * The sentinel (part 1 "Transaction scoring, holds and the trust list"): a fixed-point model
 * scores every transfer of value out of an account, whatever its destination (decisions.md §99):
 * a plain transfer to a `.human`, a `.node` (credited to its owner), a name, the value a call
 * attaches, a deposit or escrow an operation makes. At admission every plain transaction is
 * scored, and every move an operation declares (`Tx.payments`): a score at or above
 * `sentinel_reject_threshold` is refused (400) and an anomalous plain transaction is flagged in
 * the response. In the block the kernel shows the sentinel every move of coins out
 * of the signing account (`beforeTransfer`, whatever plugin makes it), and the same rules run on
 * the block's state (a proposer that skipped checkTx gains nothing): `tx_anomaly` is emitted, and
 * with `sentinel_policy_enabled` a plain payment may be held (the coins leave the sender and wait
 * here) until released, confirmed, cancelled or refunded; a move that cannot wait (a call's
 * value, an operation's deposit) is refused where it would be held.
 */
export const sentinelPlugin = definePlugin<SentinelOptions, NodeServices>({
  name: 'sentinel',
  kind: 'state',
  description: 'deterministic transaction scoring, holds with owner confirmation, the trust list',
  optionsSchema: SentinelOptionsSchema,
  params: SENTINEL_PARAMS,
  operations: [confirmHeld, cancelHeld, trustAdd, trustRemove],
  routes: SENTINEL_ROUTES,
  stores: SENTINEL_STORES,
  events: SENTINEL_EVENTS,
  supply: SENTINEL_SUPPLY,
  register(api) {
    const model = loadModel(api.options.weights_file);
    if (model.weightsHash !== api.options.weights_hash) {
      throw new ConfigError(
        `sentinel: the weights file's SHA3-256 ${model.weightsHash} does not match the registered weights_hash ${api.options.weights_hash} (plugins.sentinel.options.weights_hash): this node refuses to score with an unregistered model; restore the shipped file or retrain it with plugins/sentinel/train.ts`,
      );
    }
    api.log.info({ model: model.name, version: model.version, weights_hash: model.weightsHash }, 'sentinel model loaded');

    // The record written at genesis is what every validator scores with. A node whose config
    // and weights file agree with each other but not with it would score differently and
    // diverge: it stops, before it scores anything, the first time it reads committed state
    // (its first admission or block). Once found equal it is not read again (nothing rewrites it).
    let registeredChecked = false;
    const checkRegistered = async (store: ReadonlyStore): Promise<void> => {
      if (registeredChecked) return;
      const registered = await registeredModel.get(store);
      if (registered === undefined) return;
      if (registered.weights_hash !== model.weightsHash) {
        const err = new ConfigError(
          `sentinel: the weights file's SHA3-256 ${model.weightsHash} does not match the model registered in chain state at height ${registered.height} (${registered.name} ${registered.version}, weights_hash ${registered.weights_hash}): this node refuses to score with a model the network did not register; restore the registered file and its weights_hash`,
        );
        api.log.fatal({ registered: registered.weights_hash, loaded: model.weightsHash }, err.message);
        throw err;
      }
      registeredChecked = true;
    };

    api.hooks.beginBlock.tapPromise(api.name, async (ctx) => checkRegistered(ctx.store));

    api.hooks.initGenesis.tapPromise(api.name, async (ctx) => {
      registeredModel.set(ctx.store, { name: model.name, version: model.version, weights_hash: api.options.weights_hash, height: ctx.block.height });
    });

    /**
     * An operation's declared moves out of its signer (`Tx.payments`), judged at admission as the
     * block will judge them (`beforeTransfer` below): the same scorer, recipient and nonce
     * feature, a refusal at the threshold, and, with the policy layer on, a refusal where the
     * block would hold (an operation's move cannot wait). Its submission answer stays §17's.
     */
    const judgeDeclaredPayments = async (ctx: AdmissionContext, tx: Tx, reject: bigint, policy: boolean): Promise<ChainError | undefined> => {
      for (const m of tx.payments ?? []) {
        const from = m.from ?? tx.from;
        const t = { from, to: m.to, value: m.value, gasPrice: tx.gasPrice, nonce: (await ctx.accounts.getCore(from)).nonce + 1n };
        const { verdict: v } = await verdictOf(ctx, ctx.store, ctx.height, model, t);
        const refused = rejection(reject, v);
        if (refused) return refused;
        if (!policy) continue;
        const d = await holdDecision(ctx, ctx.store, ctx.height, t, v, () => signedBy(tx));
        if (d) return notHoldable(d, v, m.to);
      }
      return undefined;
    };

    api.hooks.checkTx.tapPromise(api.name, async (ctx, tx) => {
      // Every plain transaction that moves value, whatever it is sent to, and the moves an operation declares.
      if (tx.origin !== 'signed') return undefined;
      const operation = operationOf(tx) !== undefined;
      if (operation ? tx.payments === undefined : tx.value === 0n && tx.target !== 'transfer') return undefined;
      const { enabled, reject, policy } = await scoringParams(ctx);
      if (!enabled) return undefined;
      await checkRegistered(ctx.store);
      if (operation) return judgeDeclaredPayments(ctx, tx, reject, policy);
      const t = { from: tx.from, to: tx.to, value: tx.value, gasPrice: tx.gasPrice, nonce: tx.nonce };
      const { verdict: v } = await verdictOf(ctx, ctx.store, ctx.height, model, t);
      const refused = rejection(reject, v);
      if (refused) return refused;
      if (v.anomalous) ctx.respond(warningFields(v));
      if (!policy) return undefined;
      const d = await holdDecision(ctx, ctx.store, ctx.height, t, v, () => signedBy(tx));
      if (d && !payment(tx)) return notHoldable(d, v, tx.to);
      if (d) {
        const [holdBlocks, expiry] = await Promise.all([ctx.params.get('sentinel_hold_blocks'), ctx.params.get('sentinel_confirm_expiry_blocks')]);
        ctx.respond({
          held: { needs_owner: d.needsOwner, releases: d.needsOwner ? 'owner_confirmation' : 'automatic', reason: d.reason, score: fraction(v.scoreBp), category: v.category, ...(d.needsOwner ? { refund_after_blocks: Number(expiry) } : { release_after_blocks: Number(holdBlocks) }) },
        });
      }
      return undefined;
    });

    // Every move of coins out of a transaction's signing account, whatever plugin makes it (the
    // kernel shows each one here): scored against the address the transaction named.
    const blockParams = new BlockScoringParams();
    api.hooks.beforeTransfer.tapPromise(api.name, async (ctx, transfer) => {
      const { enabled, reject, policy } = await blockParams.of(ctx);
      if (!enabled) return undefined;
      const height = ctx.block.height;
      const nonce = scoredNonce(ctx, transfer.from);
      const t = { from: transfer.from, to: transfer.recipient, value: transfer.value, gasPrice: ctx.tx.gasPrice, nonce: typeof nonce === 'bigint' ? nonce : await nonce };
      const { verdict: v, recent } = await verdictOf(ctx, ctx.store, height, model, t);
      const refused = rejection(reject, v);
      if (refused) throw refused;
      recentTransfers.set(ctx.store, t.from, { heights: appendRecent(recent, height) });
      if (v.anomalous) txAnomaly.emit(ctx, { tx_hash: ctx.tx.hash, score: fractionText(v.scoreBp), score_bp: v.scoreBp, category: v.category, from: t.from, to: t.to, height });
      if (!policy) return undefined;
      const d = await holdDecision(ctx, ctx.store, height, t, v, () => transfer.signer.kind);
      if (!d) return undefined;
      if (!transfer.holdable) throw notHoldable(d, v, t.to);
      await ctx.accounts.debit(t.from, t.value);
      const [holdBlocks, expiry] = await Promise.all([ctx.params.get('sentinel_hold_blocks'), ctx.params.get('sentinel_confirm_expiry_blocks')]);
      const nonNeg = (x: bigint): number => Number(x < 0n ? 0n : x);
      const h: HeldTransfer = {
        tx_hash: ctx.tx.hash,
        from: t.from,
        // Where the coins land on release: a `.node`'s owner rather than the `.node` (decisions.md §30).
        to: transfer.to,
        value: t.value,
        score_bp: v.scoreBp,
        category: v.category,
        needs_owner: d.needsOwner,
        reason: d.reason,
        held_height: height,
        release_height: d.needsOwner ? null : height + nonNeg(holdBlocks),
        expiry_height: d.needsOwner ? height + nonNeg(expiry) : null,
        status: 'held',
        resolved_height: null,
      };
      heldTransfers.set(ctx.store, h.tx_hash, h);
      holdsByAddress.set(ctx.store, h.from, h.tx_hash, 1n);
      if (h.to !== h.from) holdsByAddress.set(ctx.store, h.to, h.tx_hash, 1n);
      holdsDue.set(ctx.store, (h.release_height ?? h.expiry_height)!, h.tx_hash, 1n);
      const view = heldView(h);
      txHeld.emit(ctx, { tx_hash: h.tx_hash, from: h.from, to: h.to, value: h.value, value_human: view.value_human as string, score: fractionText(h.score_bp), category: h.category, needs_owner: h.needs_owner, releases: view.releases as string, release_height: h.release_height, expiry_height: h.expiry_height });
      return { handledBy: api.name };
    });

    // Holds falling due at this height, in hash order (the store's key order): release or refund.
    api.hooks.endBlock.tapPromise(api.name, async (result, ctx) => {
      for (const { key } of await holdsDue.dueAt(ctx.store, ctx.block.height)) {
        const h = await heldTransfers.get(ctx.store, key[1]);
        if (h && h.status === 'held') await resolveHold(ctx, h, h.needs_owner ? 'refunded' : 'released');
      }
      return result;
    });

    api.hooks.routes.tap(api.name, (routes) => routes.withOwner(api.name, () => sentinelRoutes(routes, api.services, api.name, model)));
  },
});
