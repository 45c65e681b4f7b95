import { ConfigError, definePlugin, eventUcoin, type NodeServices } from '../../kernel/sdk.js';
import { FaucetOptionsSchema } from './schemas.js';
import { FAUCET_MAX_PARAM, FAUCET_TX, applyCredit, checkCredit, readCredit } from './credit.js';
import { faucetCredited } from './events.js';
import { FAUCET_ROUTES, serveFaucetRoutes } from './routes.js';

interface FaucetOptions {
  default_amount: number;
  max_amount: number;
}

/**
 * Test-network faucet: `POST /api/v1/faucet` queues a system transaction that credits the
 * address and binds its public key when the block commits; every validator re-checks the credit
 * in checkTx (test network only, amount bound, binding not stolen). It keeps no state of its own
 * (`stores: []`): it moves coins and binds keys through `ctx.accounts` only.
 */
export const faucetPlugin = definePlugin<FaucetOptions, NodeServices>({
  name: 'faucet',
  routes: FAUCET_ROUTES,
  kind: 'state',
  description: 'test-network coins and key binding; server-side phrase derivation where allowed',
  optionsSchema: FaucetOptionsSchema,
  stores: [],
  events: [faucetCredited],
  // Its credits create coins (a test network's).
  supply: { minted: (e) => (e.type === faucetCredited.type ? eventUcoin(e.data.amount) : 0n) },
  systemTransactions: [FAUCET_TX],
  params: [{ key: FAUCET_MAX_PARAM, default: 1_000_000_000n, min: 1n, max: 1_000_000_000_000_000n, description: 'the most one faucet credit may be, in ucoin; every validator enforces it in the block', unit: 'ucoin' }],
  register(api) {
    const maxAmount = BigInt(api.options.max_amount);
    if (api.options.default_amount > api.options.max_amount) {
      // Every request without an amount would be refused: stop at start-up instead.
      throw new ConfigError(`plugins.faucet.options.default_amount (FAUCET_AMOUNT) ${api.options.default_amount} is above max_amount ${api.options.max_amount} ucoin`);
    }
    api.hooks.checkTx.tapPromise(api.name, async (ctx, tx) => {
      if (tx.origin !== 'system' || tx.target !== FAUCET_TX) return undefined;
      return checkCredit(ctx, readCredit(tx), maxAmount);
    });
    api.hooks.executeTx.for(FAUCET_TX).tapPromise(api.name, async (ctx, tx) => {
      await applyCredit(ctx, readCredit(tx));
      return undefined;
    });
    api.hooks.routes.tap(api.name, (routes) => serveFaucetRoutes(routes, api.services, { defaultAmount: BigInt(api.options.default_amount), maxAmount }));
  },
});
