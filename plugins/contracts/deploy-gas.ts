import { isChainError, sha3Hex0x, type ParamReader } from '../../kernel/sdk.js';
import { deployMeteringFuel, gasOfFuel, readSettings } from './execute.js';
import { isShippedCode } from './templates.js';
import { DEPLOY_FUEL } from './vm/pricing.js';
import { checkCodeShape } from './vm/shape.js';

/**
 * The gas a deploy of `bytes` is charged when nothing runs at deploy (no `init` export, no
 * `init_args`) at the current parameters (decisions.md §47's `gas_estimate`): storing the bytes,
 * then metering them (shipped templates are metered once for all). Bytes whose shape the
 * metering refuses are charged the storing only before the refusal, which is what this answers.
 */
export async function deployGasOf(params: ParamReader, bytes: Uint8Array): Promise<number> {
  const s = await readSettings(params);
  let fuel = BigInt(bytes.length) * BigInt(DEPLOY_FUEL.perByte);
  if (!isShippedCode(sha3Hex0x(bytes))) {
    try {
      fuel += deployMeteringFuel(checkCodeShape(bytes));
    } catch (err) {
      if (!isChainError(err)) throw err;
    }
  }
  return gasOfFuel(fuel, s.fuelPerGas);
}
