export { EMPTY_ROOT } from './hashing.js';
export { StateTree, DEFAULT_NODE_PREFIX, type StateTreeOptions, type StateChange, type UpperLevelsWarmUp } from './state-tree.js';
export {
  verifyProof,
  parseStateProof,
  stateProofFromJson,
  stateProofToJson,
  type StateProof,
  type StateProofLeaf,
} from './proof.js';
export { MissingNodeError, CorruptNodeError } from './errors.js';
export { TreeBulkBuild, BULK_WRITE_NODES } from './bulk-build.js';
export { NodeKeys } from './node-keys.js';
