import { badRequest, defineOperation, forbidden, isKeyDerivedAddress, notFound, NFT_TRANSFER_FEE } from '../../../kernel/sdk.js';
import { TransferNftBody } from '../schemas.js';
import { nfts } from '../store.js';
import { moveNft } from '../records.js';
import { nftTransferred } from '../events.js';

/**
 * `POST /api/v1/nft/transfer` (decisions.md §40): the current owner gives a `.human` name or an
 * `.agent` to a key-derived `.human`, paying the operation fee plus exactly `nft_transfer_fee`
 * (100 ucoin), burned. Signs `ch-tx-v2|<from>|<nft_address>|0|<nonce>`. `.node`, `.vault` and
 * `.app` names are not NFTs: 404.
 */
export const transferNft = defineOperation({
  name: 'transfer_nft',
  description: 'moves a .human name or .agent to another owner; the NFT fee (100 ucoin) is burned',
  routes: [{ method: 'POST', path: '/api/v1/nft/transfer' }],
  socketMethod: 'transfer_nft',
  schema: TransferNftBody,
  signsFor: { field: 'nft_address' },
  actor: 'from',
  value: null,
  gas: 50,
  debits: () => NFT_TRANSFER_FEE,
  async check(ctx, op) {
    const { nft_address, to } = op.body;
    const rec = await nfts.get(ctx.store, nft_address);
    if (rec === undefined) return notFound(`${nft_address} is not an NFT: only registered .human names and .agent identities are (decisions.md §40)`);
    if (rec.owner !== op.actor) return forbidden(`${op.actor} does not own ${nft_address}: its owner is ${rec.owner}`);
    if (!isKeyDerivedAddress(to)) return badRequest(`to ${to} must be a key-derived .human address (chain:<15 hex>.human)`);
    if (to === op.actor) return badRequest(`to ${to} already owns ${nft_address}`);
    const balance = (await ctx.accounts.get(op.signer.account)).balance;
    if (balance < NFT_TRANSFER_FEE) return badRequest(`insufficient balance: an NFT transfer burns ${NFT_TRANSFER_FEE} ucoin besides the fee; ${op.signer.account} has ${balance}`);
    return undefined;
  },
  async execute(ctx, op) {
    const rec = await nfts.get(ctx.store, op.body.nft_address);
    if (rec === undefined) throw notFound(`${op.body.nft_address} is not an NFT`);
    await ctx.burn(op.signer.account, NFT_TRANSFER_FEE);
    await moveNft(ctx.store, op.body.nft_address, rec, op.body.to, ctx.block.height, op.txHash);
    nftTransferred.emit(ctx, { address: op.body.nft_address, from: op.actor, to: op.body.to, fee: NFT_TRANSFER_FEE, tx_hash: op.txHash });
  },
});
