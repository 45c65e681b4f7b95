import { defineMethods, type ReadContext } from '../../kernel/sdk.js';
import { readContract } from './store.js';

/** The owner of the contract deployed at `address`, or undefined when there is none. */
async function contractOwner(ctx: ReadContext, address: string): Promise<string | undefined> {
  return (await readContract(ctx.store, address))?.owner;
}

/** What contracts offers other plugins: names binds an `.app` name to a contract its owner deployed (decisions.md §42). */
export const contractsMethods = defineMethods('contracts', {
  read: { contractOwner },
});
