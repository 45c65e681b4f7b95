import { loadConfig } from '../../kernel/config/load.js';
import { networkMinStake } from '../../kernel/node/network-min-stake.js';
import type { NodeConfig } from '../../kernel/config/schema.js';
import { KERNEL_PARAMS } from '../../kernel/chain/kernel-params.js';
import { ParamRegistry } from '../../kernel/state/params.js';
import type { Catalogue } from '../catalogue.js';

/** What a genesis needs to know of the network it starts (configs/<network>.json and the build's plugins). */
export interface NetworkFacts {
  readonly name: string;
  readonly config: NodeConfig;
  /** `env` testnet: collect funds each owner (decisions.md §14). */
  readonly testNetwork: boolean;
  /** min_stake of a genesis whose params do not set it; undefined when the network has no staking. */
  readonly minStake: bigint | undefined;
  /** Every parameter the kernel and the network's enabled plugins declare: what `--param` may name. */
  readonly params: ParamRegistry;
}

/** The network file alone (no home, no environment): a genesis is the same whoever collects it. */
export function networkFacts(name: string, configDir: string, catalogue: Catalogue): NetworkFacts {
  const config = loadConfig({ network: name, configDir, env: {} });
  const params = new ParamRegistry();
  for (const p of KERNEL_PARAMS) params.declare('kernel', p);
  for (const entry of config.plugins) {
    if (!entry.enabled) continue;
    for (const p of catalogue.get(entry.name)?.params ?? []) params.declare(entry.name, p);
  }
  return { name, config, testNetwork: config.env === 'testnet', minStake: networkMinStake(config, catalogue), params };
}
