import { isChainError, sha3Hex0x, type ParamReader } from '../../kernel/sdk.js';
import { deployFromData, deployRequest, type DeployRequest } from './calls.js';
import { CONTRACT_BASE_GAS, deployMeteringFuel, gasOfFuel, readSettings } from './execute.js';
import { meteredOnceForAll } from './templates.js';
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
  return gasOfFuel(deployFuelOf(bytes), s.fuelPerGas);
}

/**
 * The fuel of storing and metering `bytes` at deploy (what `executeDeploy` pays before anything
 * runs). `namesTemplate`: the deploy names a template, whose bytes were metered once for all
 * (`meteredOnceForAll`), so it pays their storing only.
 */
function deployFuelOf(bytes: Uint8Array, namesTemplate = false): bigint {
  let fuel = BigInt(bytes.length) * BigInt(DEPLOY_FUEL.perByte);
  if (!meteredOnceForAll(sha3Hex0x(bytes), namesTemplate)) {
    try {
      fuel += deployMeteringFuel(checkCodeShape(bytes));
    } catch (err) {
      if (!isChainError(err)) throw err;
    }
  }
  return fuel;
}

/** `contract_fuel_per_gas`'s default, at which a deploy's own work is priced before it runs (below). */
export const REFERENCE_FUEL_PER_GAS = 20_000n;

/** The parameter's largest bytecode: a body above it is refused anyway, and is not parsed to price it. */
const LARGEST_BYTECODE = 4_194_304;

/**
 * The gas a deploy's bytes cost on top of its base 50 (`OperationSpec.bodyGas`, and
 * `SystemAddressSpec.dataGas` for a plain transaction to `chain:system.deploy`): storing and
 * metering them at `REFERENCE_FUEL_PER_GAS`, so that at the default parameters base + this is the
 * analyzer's `gas_estimate` (decisions.md §47). It is also the limit of a deploy that declares no
 * `gas_limit`, which part 1–2 clients never do (v2 and v3 cannot sign one, §95): without it, the
 * metering alone (3 000 000 fuel a module, 150 gas) would exceed the base and every such deploy of
 * new code would fail out of fuel. `init` runs on top and needs a declared limit. Known from the
 * fields alone, deterministically; fields that are no deploy cost nothing here (admission and the
 * block refuse them).
 */
export function deployBodyGas(fields: Readonly<Record<string, unknown>>): number {
  return gasOfDeploy(() => deployRequest(fields as Record<string, unknown>, LARGEST_BYTECODE));
}

/**
 * The gas a template registration's bytes cost on top of its base 50: what a deploy of them
 * alone would pay (storing and metering), since the registration's block meters them once for
 * all and every deploy naming the template then pays their storing only (`meteredOnceForAll`).
 * Without it the metering pass of a registered template would be paid by nobody.
 */
export function templateRegisterBodyGas(fields: Readonly<Record<string, unknown>>): number {
  return deployBodyGas({ bytecode_hex: fields.bytecode_hex });
}

/** `deployBodyGas` of a plain transaction's `data` (the deploy's fields as JSON, or hex of it). */
export function deployDataGas(data: string | undefined): number {
  return data === undefined ? 0 : gasOfDeploy(() => deployFromData(data, LARGEST_BYTECODE));
}

function gasOfDeploy(requestOf: () => DeployRequest): number {
  let req: DeployRequest;
  try {
    req = requestOf();
  } catch (err) {
    if (!isChainError(err)) throw err;
    return 0;
  }
  if (req.bytecode === null) return 0;
  return Math.max(0, Number((deployFuelOf(req.bytecode, req.template !== null) + REFERENCE_FUEL_PER_GAS - 1n) / REFERENCE_FUEL_PER_GAS) - CONTRACT_BASE_GAS);
}
