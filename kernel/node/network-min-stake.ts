import type { PluginDefinition } from '../host/plugin.js';
import type { NodeConfig } from '../config/schema.js';

/**
 * A network's `min_stake` as a new genesis gets it when its `params` do not set it: the network's
 * override (configs/<network>.json `param_overrides`, `CHAIN_*` variables), else the default of the
 * enabled plugin that declares it (staking). Undefined when no enabled plugin declares it: that
 * network has no minimum. Known before any plugin boots, so start-up can check the genesis first.
 */
export function networkMinStake(config: Pick<NodeConfig, 'param_overrides' | 'plugins'>, catalogue: ReadonlyMap<string, Pick<PluginDefinition<never, never>, 'params'>>): bigint | undefined {
  const override = config.param_overrides.min_stake;
  if (override !== undefined) return BigInt(override);
  for (const entry of config.plugins) {
    if (!entry.enabled) continue;
    const spec = catalogue.get(entry.name)?.params?.find((p) => p.key === 'min_stake');
    if (spec) return spec.default;
  }
  return undefined;
}
