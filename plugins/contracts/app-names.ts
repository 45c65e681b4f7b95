import type { ReadContext } from '../../kernel/sdk.js';
import { namesMethods } from '../names/public.js';
import { isContractAddress } from './address.js';

/**
 * The contract address a transaction, `GET /api/v1/contracts/:address` or `/call` names: a
 * registered `.app` name (decisions.md §42) stands for its contract, exactly as if the contract's
 * address were given; any other address is itself. Asked of the names plugin, when a network runs it.
 */
export async function contractAddressOf(ctx: Pick<ReadContext, 'methods'>, address: string): Promise<string> {
  // A deployed contract's own address (§27) is never a name: §38 refuses 10-hex `.app` labels.
  if (isContractAddress(address) || !(await ctx.methods.active(namesMethods))) return address;
  return (await ctx.methods.of(namesMethods).appContract(address)) ?? address;
}

/** The contract record's `app_name` (§42): its `.app` name, `""` when it has none. */
export async function appNameOf(ctx: Pick<ReadContext, 'methods'>, contract: string): Promise<string> {
  if (!(await ctx.methods.active(namesMethods))) return '';
  return (await ctx.methods.of(namesMethods).appNameOf(contract)) ?? '';
}
