import { forbidden } from '../errors.js';
import type { NetworkEnv } from '../context/contexts.js';
import type { RouteTable } from '../host/route-table.js';

/**
 * Operations part 1 reserves for test networks, with the refusal each gets elsewhere. The faucet
 * plugin refuses with the same texts when a test-network config is run with CHAIN_ENV=mainnet.
 */
export const TEST_NETWORK_ONLY = {
  faucet: { path: '/api/v1/faucet', message: 'the faucet is available on test networks only (CHAIN_ENV=testnet)' },
  derive: { path: '/api/v1/wallet/derive-address', message: 'server-side phrase derivation is off on mainnet: derive addresses on the client' },
} as const;

/**
 * On mainnet no config lists the faucet plugin, so without this its routes would be 404, while
 * part 2 names 403 for "faucet on mainnet". The kernel answers them instead of the plugin being
 * listed on mainnet: a listed state plugin enters the activation schedule written into genesis
 * state (a different mainnet state root) and puts its checkTx and executeTx taps on every
 * validator's consensus path, all to produce an error an RPC route can give. Runs after the
 * plugins' routes, so a node whose config does list the faucet keeps the plugin's own answer.
 */
export function registerMainnetRefusals(routes: RouteTable, env: NetworkEnv): void {
  if (env !== 'mainnet') return;
  for (const { path, message } of Object.values(TEST_NETWORK_ONLY)) {
    if (routes.has('POST', path)) continue;
    routes.post(path, () => {
      throw forbidden(message);
    });
  }
}
