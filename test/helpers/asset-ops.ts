import { nobleProvider } from '../../kernel/crypto/noble-provider.js';
import { toHex } from '../../kernel/codec/hex.js';
import { assetOpMessage, ASSETS_TARGET, PSIG_FIELD } from '../../plugins/assets/public.js';

export { ASSETS_TARGET };
import { signOperation, type Wallet } from './chain-fixture.js';


/** The body field each operation signs as `<value>` (decisions.md §6, §54), when it has one. */
const VALUE_OF: Readonly<Record<string, string>> = { issue_asset: 'initial', transfer_asset: 'amount', dex_deposit: 'amount', dex_withdraw: 'amount', swap: 'amount_in' };

export interface AssetOpOptions {
  readonly nonce: number;
  /** `valid` (default): a `_psig` over the exact payload; `none`: no `_psig`; or the `_psig` hex to send as it is. */
  readonly psig?: 'valid' | 'none' | { readonly hex: string };
  /** Signs `_psig` with another wallet's key (a bad second signature). */
  readonly psigBy?: Pick<Wallet, 'keys'>;
  /** Signs `_psig` over this text instead of the layout (another tag, operation, field or nonce). */
  readonly psigText?: string;
  readonly gas_price?: number;
}

/**
 * A client's body of an asset or exchange operation: signed `ch-tx-v4` for `chain:system.assets`
 * with actor `from`, plus `_psig` over `ch-asset-op-v1|<op>|<from>|<canonical body>|<nonce>`
 * (decisions.md §54), both by the wallet's key, as a shipped client signs them.
 */
export function signAssetOp(w: Pick<Wallet, 'keys' | 'publicKeyHex'>, op: string, body: Record<string, unknown> & { from: string }, o: AssetOpOptions): Record<string, unknown> {
  const valueField = VALUE_OF[op];
  const value = valueField === undefined ? 0 : Number(body[valueField] ?? 0);
  const signed = signOperation(w, { kind: op, actor: body.from, target: ASSETS_TARGET, value, nonce: o.nonce, body, ...(o.gas_price !== undefined ? { gas_price: o.gas_price } : {}) });
  const psig = o.psig ?? 'valid';
  if (psig === 'none') return signed;
  if (typeof psig === 'object') return { ...signed, [PSIG_FIELD]: psig.hex };
  const { signature: _s, public_key: _k, ...sent } = signed;
  const text = o.psigText ?? assetOpMessage(op, body.from, sent, o.nonce);
  return { ...signed, [PSIG_FIELD]: toHex(nobleProvider.sign(new TextEncoder().encode(text), (o.psigBy ?? w).keys.secretKey)) };
}
