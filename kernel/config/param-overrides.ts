import { ConfigError, ENV_BINDINGS } from './env.js';
import type { ParamRegistry } from '../state/params.js';

/**
 * Parameter overrides (`CHAIN_UNBONDING_BLOCKS`, `CHAIN_JAIL_BLOCKS`, …, `param_overrides` in a
 * network file) seed a new chain's genesis state. Each must name a parameter some enabled plugin
 * (or the kernel) declares, and lie in its range: an override nobody reads would be silently
 * ignored, and the operator would believe a chain runs with a value it does not have. Checked
 * once every plugin has declared its parameters, before any state is written.
 */
export function checkParamOverrides(overrides: Readonly<Record<string, string>>, params: ParamRegistry): void {
  for (const [key, raw] of Object.entries(overrides).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const variable = ENV_BINDINGS.find((b) => b.path[0] === 'param_overrides' && b.path[1] === key)?.variable;
    const name = variable ? `${variable} (parameter ${key})` : `param_overrides.${key}`;
    if (!params.has(key)) throw new ConfigError(`${name}: no enabled plugin of this network declares the parameter "${key}"`);
    const problem = params.checkValue(key, BigInt(raw));
    if (problem) throw new ConfigError(`${name}: ${problem}`);
  }
}
