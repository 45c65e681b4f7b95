import { toHex } from '../../kernel/codec/hex.js';
import { plainTxPayloadHash, txMessageV3 } from '../../kernel/crypto/signed-message.js';
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
 * The signed body of a plain transfer, as `POST /api/v1/transactions` takes it. The signed bytes
 * come from the kernel's one builder of layouts (kernel/crypto/signed-message.ts): the strongest
 * layout this build verifies, ch-tx-v3 over from, to, value, nonce, gas price and the payload (no
 * `data`). decisions.md §94's ch-tx-v4 (chain id and act named) replaces it here, and only here,
 * once the kernel's builder has it: `chainId` is already read for that.
 */
export function signTransferBody(key: LoadedKey, t: TransferFields, provider: Pick<SignatureProvider, 'sign'>): Record<string, unknown> {
  const from = key.file.address;
  const message = txMessageV3(from, t.to, t.value, t.nonce, t.gasPrice, plainTxPayloadHash(undefined));
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
