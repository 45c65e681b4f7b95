import { definePlugin, isAddress, requireMainKey, type NodeServices } from '../../kernel/sdk.js';
import { UNDECLARED_MAIN_KEY_ONLY } from './main-key-only.js';
import { grantSession } from './operations/grant.js';
import { revokeSession } from './operations/revoke.js';
import { capProblem, priceProblem, sessionProblem } from './limits.js';
import { grants, keyId } from './store.js';
import { sessionGranted, sessionRevoked } from './events.js';
import { SESSION_ROUTES, sessionRoutes } from './routes.js';

/**
 * Session keys (part 1 "Account abstraction", part 2 "Session keys"): an account's main key
 * grants another key the right to sign for it within a scope, a total spend cap and below an
 * expiry block. The grant is enforced in authorization (`resolveSigner`), which the kernel asks
 * at admission and again in the block, so a revoked, expired or exhausted key fails in consensus
 * even in a block whose proposer skipped checkTx. The cap counts every ucoin a transaction takes
 * from the account besides its fee (decisions.md §95): judged before it runs against what it
 * declares (`req.debit`), and after it ran against what the kernel counted it took.
 */
export const sessionPlugin = definePlugin<Record<string, never>, NodeServices>({
  name: 'session',
  kind: 'state',
  description: 'session keys: grants with scope, spend cap and expiry, enforced in consensus',
  operations: [grantSession, revokeSession],
  routes: SESSION_ROUTES,
  stores: [grants],
  events: [sessionGranted, sessionRevoked],
  register(api) {
    api.hooks.resolveSigner.tapPromise(api.name, async (ctx, req) => {
      if (!isAddress(req.actor)) return undefined;
      const id = keyId(req.publicKey);
      const g = await grants.get(ctx.store, req.actor, id);
      if (!g || g.session_pk !== req.publicKey) return undefined;
      // Said first, whatever the grant's scope: these are never a session key's to sign.
      const mainOnly = req.mainKeyOnly ?? (req.operation === undefined ? undefined : UNDECLARED_MAIN_KEY_ONLY.get(req.operation));
      if (mainOnly !== undefined) return requireMainKey({ kind: 'session', publicKey: req.publicKey, account: req.actor, payer: req.actor, grantedBy: api.name }, mainOnly);
      // At admission the key's other pending transactions count too (a block has them in state).
      const problem = (await priceProblem(ctx, req.tx)) ?? (await sessionProblem(ctx, g, req.tx.to, req.debit, req.pendingDebit()));
      if (problem) return problem;
      return {
        kind: 'session',
        plugin: api.name,
        // What the transaction really took from the account (the kernel counts every debit and
        // transfer out of it, whatever plugin made it), counted once it applied, inside its
        // rollback scope: a failed one spends nothing, and one that took more than its cap left
        // fails here, its writes rolled back.
        onApplied: async (tctx, applied) => {
          if (applied.debited === 0n) return;
          const now = (await grants.get(tctx.store, req.actor, id))!;
          const over = capProblem(now, applied.debited);
          if (over) throw over;
          grants.set(tctx.store, req.actor, id, { ...now, spent: now.spent + applied.debited });
        },
      };
    });
    api.hooks.routes.tap(api.name, (routes) => routes.withOwner(api.name, () => sessionRoutes(routes, api.services, api.name)));
  },
});
