import { badRequest, defineRoute, deriveAddress, forbidden, formatCoin, isValidMnemonic, seedFromMnemonic, TEST_NETWORK_ONLY, toHex, type NodeServices, type RouteTable } from '../../kernel/sdk.js';
import { DeriveAnswerSchema, DeriveRequestSchema, FaucetAnswerSchema, FaucetIgnoredFields, FaucetRequestSchema } from './schemas.js';
import { FAUCET_SENDER, FAUCET_TX, checkCredit } from './credit.js';

export const faucetRoute = defineRoute({
  method: 'POST',
  path: TEST_NETWORK_ONLY.faucet.path,
  summary: 'queues a credit of test coins to an address, binding its key when it has none (test networks only)',
  description: 'an unsigned write: the signed fields a socket write method carries (signature, nonce) are accepted when well typed and ignored',
  body: FaucetRequestSchema,
  ignoredBodyFields: FaucetIgnoredFields,
  responses: {
    200: FaucetAnswerSchema,
    400: 'not a chain address, not a 3 904-hex-digit lowercase key, an amount outside 1..max_amount, or a key the faucet may not bind to that address',
    403: 'not a test network',
    409: 'the address is bound to another key, or derived from another key',
  },
});

export const deriveRoute = defineRoute({
  method: 'POST',
  path: TEST_NETWORK_ONLY.derive.path,
  summary: 'the address and public key a recovery phrase derives (off on mainnet, and unless CHAIN_ALLOW_SERVER_DERIVE=true)',
  body: DeriveRequestSchema,
  responses: { 200: DeriveAnswerSchema, 400: 'not a valid BIP-39 English phrase', 403: 'mainnet, or server-side derivation switched off' },
});

/** The routes the plugin lists in its definition, for the gateway to forward under these declarations (part 1: served by both). */
export const FAUCET_ROUTES = [faucetRoute, deriveRoute] as const;

/** The faucet's routes: both refuse (403) before reading the body where this node does not serve them. */
export function serveFaucetRoutes(routes: RouteTable, s: NodeServices, opts: { defaultAmount: bigint; maxAmount: bigint }): void {
  const onTestNetwork = () => (s.config.env !== 'testnet' ? forbidden(TEST_NETWORK_ONLY.faucet.message) : undefined);
  routes.serve(
    faucetRoute,
    async (req) => {
      const body = req.body;
      const amount = body.amount === undefined ? opts.defaultAmount : BigInt(body.amount);
      const credit = { address: body.address, publicKey: body.public_key.toLowerCase(), amount };
      const problem = await s.query.run('faucet', (ctx) => checkCredit(ctx, credit, opts.maxAmount));
      if (problem) throw problem;
      const requestedAt = s.now();
      const tx = await s.chain.admitSystem(FAUCET_TX, FAUCET_SENDER, credit.address, amount, { address: credit.address, public_key: credit.publicKey, amount: Number(amount), requested_at: requestedAt }, requestedAt);
      return {
        success: true,
        status: 'pending',
        address: credit.address,
        amount,
        amount_human: formatCoin(amount),
        block: s.chain.head.height + 1,
        tx_hash: tx.hash,
        note: 'the credit is applied when the next block commits',
      };
    },
    { refuse: onTestNetwork },
  );

  const deriving = () => {
    if (s.config.env === 'mainnet') return forbidden(TEST_NETWORK_ONLY.derive.message);
    if (!s.config.wallet.allow_server_derive) return forbidden('server-side phrase derivation is off; a test network enables it with CHAIN_ALLOW_SERVER_DERIVE=true');
    return undefined;
  };
  routes.serve(
    deriveRoute,
    (req) => {
      if (!isValidMnemonic(req.body.words)) throw badRequest('words is not a valid BIP-39 English recovery phrase');
      const keys = s.provider.keygen(seedFromMnemonic(req.body.words));
      return { address: deriveAddress(keys.publicKey), public_key: toHex(keys.publicKey) };
    },
    { refuse: deriving },
  );
}
