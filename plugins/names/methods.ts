import { addressKind, defineMethods, type ReadContext } from '../../kernel/sdk.js';
import { apps, appOfContract } from './store.js';

/** The contract a registered `.app` name names (decisions.md §42), or undefined for any other address. */
async function appContract(ctx: ReadContext, address: string): Promise<string | undefined> {
  if (addressKind(address) !== 'app') return undefined;
  return (await apps.get(ctx.store, address))?.address;
}

/** The `.app` name bound to `contract`, or undefined (the contract record's `app_name`). */
async function appNameOf(ctx: ReadContext, contract: string): Promise<string | undefined> {
  return appOfContract.get(ctx.store, contract);
}

/**
 * What names offers other plugins: the contracts plugin resolves `chain:<name>.app` in
 * transactions, `GET /api/v1/contracts/:address` and `/call`, and shows a contract's `app_name`.
 */
export const namesMethods = defineMethods('names', {
  read: { appContract, appNameOf },
});
