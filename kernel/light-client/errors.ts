/**
 * The checks a light client makes, each named so a caller (the SDK, the browser module, the IBC
 * and cross-shard plugins) can say which one failed: a wallet shows it, a plugin answers 400
 * naming it (decisions.md §76: "naming what failed").
 */
export type LightClientCheck =
  /** The answer, header, certificate, validator list or proof is not of the documented shape. */
  | 'shape'
  /** The pinned genesis hash is not the hash of the genesis document offered as trust anchor. */
  | 'genesis_hash'
  /** An entry's Merkle proof does not give the proof's `state_root` for its key and bytes. */
  | 'entry_proof'
  /** A field of the answer differs from the proven entry it was read from. */
  | 'answer_field'
  /** SHA3-256 of the canonical header is not the certificate's `block_hash`. */
  | 'block_hash'
  /** The header names another chain than the trusted one. */
  | 'chain_id'
  /** Header, certificate and proof heights do not line up (`header.height` = `proof.height` + 1 = `certificate.height`). */
  | 'height'
  /** The header's `prev_state_root` is not the proof's `state_root`. */
  | 'prev_state_root'
  /** The served validator list does not hash to the header's `validators_hash`. */
  | 'validators_hash'
  /** A proposed next set does not hash to the header's `next_validators_hash`. */
  | 'next_validators_hash'
  /** The served set differs from the trusted one where the caller accepts no set change. */
  | 'validator_set'
  /** The signers of the trusted set hold too little of its power. */
  | 'trusted_power'
  /** The signers of the served (new) set hold no more than 2/3 of its power. */
  | 'served_power'
  /** An IBC header's `validators_proof` does not prove its `validators` as `ibc/valset` under its state root (decisions.md §65). */
  | 'validators_proof';

/** A refused header, certificate, proof or answer: `check` names the rule, the message says how. */
export class LightClientError extends Error {
  readonly check: LightClientCheck;

  constructor(check: LightClientCheck, message: string) {
    super(`${check}: ${message}`);
    this.name = 'LightClientError';
    this.check = check;
  }
}

export function refuse(check: LightClientCheck, message: string): never {
  throw new LightClientError(check, message);
}

export function isLightClientError(err: unknown): err is LightClientError {
  return err instanceof LightClientError;
}
