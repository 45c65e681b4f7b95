import { canonicalJson, type OperationSigning } from '../../kernel/sdk.js';

/** The tag of the asset payload signature (part 2 Versioning 2). */
export const ASSET_OP_TAG = 'ch-asset-op-v1';
/** The body field that carries it (decisions.md §54). */
export const PSIG_FIELD = '_psig';

/**
 * The text `_psig` signs (decisions.md §54): `ch-asset-op-v1|<op>|<from>|<fields>|<nonce>`,
 * `<fields>` the canonical JSON of the body as sent without `signature`, `public_key` and `_psig`
 * (keys sorted by UTF-16 code unit, no whitespace; so with `from` and `nonce`, and `gas_price` /
 * `gas_limit` when sent). Clients build it from the same function (plugins/assets/public.ts).
 */
export function assetOpMessage(op: string, from: string, sent: Readonly<Record<string, unknown>>, nonce: bigint | number): string {
  return `${ASSET_OP_TAG}|${op}|${from}|${canonicalJson(sent)}|${nonce}`;
}

/**
 * The second signature of every asset and exchange operation, through the kernel's
 * second-signature path: required with `CHAIN_ENV=mainnet` (missing: 401), optional on test
 * networks, 401 whenever present and not verifying, checked again when a block carrying it is
 * validated.
 */
export function assetOpSigning<B>(): OperationSigning<B> {
  return {
    secondSignature: {
      field: PSIG_FIELD,
      message: (o) => assetOpMessage(o.name, o.actor, o.sent, o.nonce),
      required: (env) => env === 'mainnet',
    },
  };
}
