import { Value } from '@sinclair/typebox/value';
import { badRequest, deriveAddress, forbidden, formatCoin, isValidMnemonic, seedFromMnemonic, TEST_NETWORK_ONLY, toHex, type NodeServices, type RouteTable } from '../../kernel/sdk.js';
import { DeriveRequestSchema, parseFaucetRequest } from './schemas.js';
import { FAUCET_SENDER, FAUCET_TX, checkCredit } from './credit.js';

export function faucetRoutes(routes: RouteTable, s: NodeServices, opts: { defaultAmount: bigint; maxAmount: bigint }): void {
  routes.post(TEST_NETWORK_ONLY.faucet.path, async (req) => {
    if (s.config.env !== 'testnet') throw forbidden(TEST_NETWORK_ONLY.faucet.message);
    const body = parseFaucetRequest(req.body);
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
  });

  routes.post(TEST_NETWORK_ONLY.derive.path, (req) => {
    if (s.config.env === 'mainnet') throw forbidden(TEST_NETWORK_ONLY.derive.message);
    if (!s.config.wallet.allow_server_derive) throw forbidden('server-side phrase derivation is off; a test network enables it with CHAIN_ALLOW_SERVER_DERIVE=true');
    const body = req.body;
    if (!Value.Check(DeriveRequestSchema, body)) throw badRequest('body must be {"words": "<24-word recovery phrase>"}');
    if (!isValidMnemonic(body.words)) throw badRequest('words is not a valid BIP-39 English recovery phrase');
    const keys = s.provider.keygen(seedFromMnemonic(body.words));
    return { address: deriveAddress(keys.publicKey), public_key: toHex(keys.publicKey) };
  });
}
