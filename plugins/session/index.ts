import { definePlugin, requireMainKey, type NodeServices } from '../../kernel/sdk.js';
import { MAIN_KEY_ONLY_OPERATIONS } from './main-key-only.js';
import { grantSession } from './operations/grant.js';
import { revokeSession } from './operations/revoke.js';
import { capProblem, priceProblem, sessionProblem } from './limits.js';
import { grantPath, type SessionGrant } from './store.js';
import { sessionRoutes } from './routes.js';

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
  events: [
    { type: 'session_granted', description: 'an account granted a session key', fields: ['account', 'session_pk', 'scope', 'cap', 'expiry_block'], socket: true },
    { type: 'session_revoked', description: 'an account revoked a session key, effective from the next block', fields: ['account', 'session_pk', 'effective_block'], socket: true },
  ],
  register(api) {
    api.hooks.resolveSigner.tapPromise(api.name, async (ctx, req) => {
      const g = await ctx.store.getRecord<SessionGrant>(grantPath(req.actor, req.publicKey));
      if (!g || g.session_pk !== req.publicKey) return undefined;
      // Said first, whatever the grant's scope: these are never a session key's to sign.
      const mainOnly = req.operation === undefined ? undefined : MAIN_KEY_ONLY_OPERATIONS.get(req.operation);
      if (mainOnly !== undefined) return requireMainKey({ kind: 'session', publicKey: req.publicKey, account: req.actor, payer: req.actor, grantedBy: api.name }, mainOnly);
      const problem = (await priceProblem(ctx, req.tx)) ?? (await sessionProblem(ctx, g, req.tx.to, req.debit));
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
          const path = grantPath(req.actor, req.publicKey);
          const now = (await tctx.store.getRecord<SessionGrant>(path))!;
          const over = capProblem(now, applied.debited);
          if (over) throw over;
          tctx.store.setRecord<SessionGrant>(path, { ...now, spent: now.spent + applied.debited });
        },
      };
    });
    api.hooks.routes.tap(api.name, (routes) => routes.withOwner(api.name, () => sessionRoutes(routes, api.services, api.name)));
  },
});
