import { nobleProvider } from '../../kernel/crypto/noble-provider.js';
import { toHex } from '../../kernel/codec/hex.js';
import { plainSigningFields, txSigningMessage } from '../../kernel/tx/signing.js';
import type { SessionKey } from './config.js';

/** What a write tool sends: a plain transaction (`POST /api/v1/transactions`) from the configured account. */
export interface UnsignedWrite {
  readonly chainId: string;
  readonly from: string;
  readonly to: string;
  readonly value: bigint;
  readonly nonce: bigint;
  /** `base_fee` as read from the gas estimate: §95 lets a session key pay no more. */
  readonly gasPrice: bigint;
  /** Compact JSON of a call or deploy; absent for a transfer. */
  readonly data?: string;
}

/**
 * The body of `POST /api/v1/transactions`, signed `ch-tx-v4` with the session key (decisions.md
 * §80, §94): `ch-tx-v4|<chain_id>|tx|<from>|<to>|<value>|<nonce>|<gas_price>|0|<0x SHA3-256 of
 * data>`, built by the kernel's own `txSigningMessage` (the verifier's and `chain op`'s), never
 * v2 or v3, which leave `data` unsigned and name no chain. The body has exactly `from`, `to`,
 * `value`, `nonce`, `gas_price`, `public_key`, `signature`, and `data` when there is one: no
 * `gas_limit` (the signature's `0`).
 */
export function signWrite(key: SessionKey, w: UnsignedWrite): Record<string, unknown> {
  const fields = plainSigningFields({ from: w.from, to: w.to, value: w.value, nonce: w.nonce, gas_price: w.gasPrice, gas_limit: undefined, data: w.data });
  const message = txSigningMessage('v4', fields, { chainId: w.chainId, baseFee: w.gasPrice });
  const signature = toHex(nobleProvider.sign(message, key.keys.secretKey));
  return {
    from: w.from,
    to: w.to,
    value: Number(w.value),
    nonce: Number(w.nonce),
    gas_price: Number(w.gasPrice),
    public_key: key.publicKeyHex,
    signature,
    ...(w.data !== undefined ? { data: w.data } : {}),
  };
}
