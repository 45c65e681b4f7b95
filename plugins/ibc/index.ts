import { ConfigError, definePlugin, eventUcoin, type NodeServices } from '../../kernel/sdk.js';
import { DEFAULT_NATIVE_DENOM, IbcOptionsSchema } from './schemas.js';
import { IBC_STORES, settings } from './store.js';
import { IBC_EVENTS, ibcRecv } from './events.js';
import { IBC_PARAMS } from './params.js';
import { IBC_ROUTES, serveIbcRoutes } from './routes.js';
import { channelOpen, channelPause } from './operations/channel.js';
import { clientUpdate } from './operations/client-update.js';
import { attest, redeem, transfer } from './operations/send.js';
import { recv } from './operations/recv.js';
import { ack, timeout } from './operations/settle.js';

interface IbcOptions {
  operator_pubkeys: string;
  trusted_pubkeys: string;
  native_denom: string;
  require_header: boolean;
  require_packet_commitment: boolean;
}

const KEY_RE = /^[0-9a-f]{3904}$/;

/** A comma-separated list of hex public keys (CHAIN_IBC_OPERATOR_PUBKEYS, CHAIN_IBC_TRUSTED_PUBKEYS), lowercased, sorted, each once. */
function keyList(variable: string, text: string): string[] {
  const keys = text.split(',').map((k) => k.trim().toLowerCase()).filter((k) => k.length > 0);
  const bad = keys.find((k) => !KEY_RE.test(k));
  if (bad !== undefined) throw new ConfigError(`${variable}: "${bad.slice(0, 24)}…" is not an ML-DSA-65 public key (3 904 hex digits)`);
  return [...new Set(keys)].sort();
}

/**
 * IBC v2 between two live chains (decisions.md §63–69): channels, escrowed transfers and vouchers,
 * attestations, and light clients of counterparties whose headers and packet proofs are verified
 * in consensus by the kernel light client. Operators relay (their keys are in state, seeded at
 * genesis); every account may send its own coins and redeem its vouchers.
 */
export const ibcPlugin = definePlugin<IbcOptions, NodeServices>({
  name: 'ibc',
  kind: 'state',
  description: 'IBC v2: channels, escrowed transfers and vouchers, attestations, on-chain light clients of counterparties with proven packets',
  optionsSchema: IbcOptionsSchema,
  stores: [...IBC_STORES],
  events: [...IBC_EVENTS],
  // The native escrow is an account (`chain:ibc.escrow.<channel>`) and an ack burns it with
  // ctx.burn; this chain's coin coming back is created again by the recv (decisions.md §67–68).
  // Vouchers (`ibc/…` denoms) are not the coin.
  supply: { minted: (e) => (e.type === ibcRecv.type && typeof e.data.credited_denom === 'string' && !e.data.credited_denom.startsWith('ibc/') ? eventUcoin(e.data.amount) : 0n) },
  params: [...IBC_PARAMS],
  operations: [channelOpen, channelPause, clientUpdate, transfer, redeem, attest, recv, ack, timeout],
  routes: IBC_ROUTES,
  register(api) {
    // §63: inbound packets need a verified header and a proven commitment on every network.
    if (!api.options.require_header) throw new ConfigError('CHAIN_IBC_REQUIRE_HEADER (plugins.ibc.options.require_header) cannot be off: inbound packets are accepted only under a verified header (decisions.md §63)');
    if (!api.options.require_packet_commitment) throw new ConfigError('CHAIN_IBC_REQUIRE_PACKET_COMMITMENT (plugins.ibc.options.require_packet_commitment) cannot be off: inbound packets are accepted only with a proven commitment (decisions.md §63)');
    const operators = keyList('CHAIN_IBC_OPERATOR_PUBKEYS', api.options.operator_pubkeys);
    const trusted = keyList('CHAIN_IBC_TRUSTED_PUBKEYS', api.options.trusted_pubkeys);
    const seed = (chainId: string) => ({ chain_id: chainId, operators, trusted_keys: trusted, native_denom: api.options.native_denom });
    api.hooks.initGenesis.tapPromise(api.name, async (ctx) => {
      settings.set(ctx.store, seed(ctx.genesis.chain_id));
    });
    let compared = false;
    // A network that activates the plugin after genesis seeds it in its first block, from nothing
    // a node's own variables say: this runs in consensus, where validators started with other
    // lists would write other states. No operators and no key restriction, the native denom's
    // default; the list of operators is then the chain's to change, never a node's.
    api.hooks.beginBlock.tapPromise(api.name, async (ctx) => {
      const current = await settings.get(ctx.store);
      if (current === undefined) {
        settings.set(ctx.store, { chain_id: ctx.block.chainId, operators: [], trusted_keys: [], native_denom: DEFAULT_NATIVE_DENOM });
      } else if (!compared) {
        // §63: rights are read from state; a node started with another list says so once and follows the chain.
        compared = true;
        if (current.operators.join(',') !== operators.join(',')) api.log.warn({ variable: 'CHAIN_IBC_OPERATOR_PUBKEYS' }, 'CHAIN_IBC_OPERATOR_PUBKEYS differs from the operator list in chain state; this node follows the chain');
      }
    });
    api.hooks.routes.tap(api.name, (routes) => serveIbcRoutes(routes, api.services));
  },
});
