import { toHex } from '../../kernel/codec/hex.js';
import { plainSigningFields, txSigningMessage } from '../../kernel/tx/signing.js';
import type { LoadedKey } from '../../kernel/crypto/keyfile.js';
import type { SignatureProvider } from '../../kernel/crypto/provider.js';

export interface TransferFields {
  /** The network's chain id (`GET /api/v1/status`): what a ch-tx-v4 signature names. */
  readonly chainId: string;
  readonly to: string;
  readonly value: bigint;
  /** The account's next nonce (`next_nonce`, pending transactions counted). */
  readonly nonce: bigint;
  readonly gasPrice: bigint;
}

/**
 * The signed body of a plain transfer, as `POST /api/v1/transactions` takes it, signed
 * `ch-tx-v4` (decisions.md §94: the chain id and the act are named, the price covered) through the
 * kernel's one builder of layouts (kernel/tx/signing.ts), the verifier's own.
 */
export function signTransferBody(key: LoadedKey, t: TransferFields, provider: Pick<SignatureProvider, 'sign'>): Record<string, unknown> {
  const from = key.file.address;
  const fields = plainSigningFields({ from, to: t.to, value: t.value, nonce: t.nonce, gas_price: t.gasPrice, gas_limit: undefined, data: undefined });
  const message = txSigningMessage('v4', fields, { chainId: t.chainId, baseFee: t.gasPrice });
  return {
    from,
    to: t.to,
    value: Number(t.value),
    nonce: Number(t.nonce),
    gas_price: Number(t.gasPrice),
    public_key: key.file.public_key,
    signature: toHex(provider.sign(message, key.keys.secretKey)),
  };
}
