/**
 * The light client (decisions.md §84–85): headers against a validator set's ML-DSA-65 precommits,
 * validator-set changes under a trust level, Merkle proofs of state keys against a header's state
 * root, and the §85 checker of proven reads. One module for the SDK, the browser module, the
 * explorer, IBC (§65) and cross-shard transfers (§72): pure, deterministic, no I/O and no Node
 * built-ins (it bundles for the browser as it is).
 */
export { LightClientError, isLightClientError, type LightClientCheck } from './errors.js';
export { VALSET_TAG, parseValidators, sortValidators, totalPower, validatorsHash, validatorsToJson, type LightValidator } from './validator-set.js';
export { decodeStateProof, verifyStateProof, type DecodedStateProof, type StateProof, type StateProofLeaf } from './state-proof.js';
export {
  ONE_THIRD,
  TWO_THIRDS,
  exceeds,
  nextValidatorsOf,
  nobleSignatureCheck,
  parseCertificate,
  parseHeader,
  precommitMessage,
  signedPower,
  tallySignatures,
  verifyCommit,
  type CommitAnswer,
  type CommitOptions,
  type LightCertificate,
  type LightHeader,
  type ServedSignature,
  type SignatureCheck,
  type TrustLevel,
  type TrustedValidators,
  type VerifiedCommit,
} from './commit.js';
export { IBC_HEADER_TAG, ibcHeaderMessage } from './ibc-header.js';
export {
  IBC_VALSET_KEY,
  compareIbcKeys,
  ibcClientHeightKey,
  ibcCommitmentKey,
  ibcReceiptKey,
  ibcValsetValue,
  parseIbcHeader,
  verifyIbcHeader,
  verifyIbcProof,
  type IbcHeader,
  type IbcValidator,
  type VerifiedIbcHeader,
} from './ibc-client.js';
export { checkAnswerFields, provenEntryOf, trustFromGenesis, verifyProvenRead, type ProvenEntry, type ProvenRead, type ProvenReadOptions } from './proven-read.js';
