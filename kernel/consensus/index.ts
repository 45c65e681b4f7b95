/** Public surface of the consensus core. */
export * from './types.js';
export { compareAddresses, compareBytes, hashKey, NIL_KEY, type HashKey } from './bytes.js';
export { PROPOSER_DOMAIN_TAG, canonicalOrder, proposerDigest, selectProposer, selectProposerIndex, u64be, type WeightedAddress } from './proposer.js';
export { ValidatorSet, isEncodableField } from './validator-set.js';
export { DEFAULT_TIMEOUTS, resolveTimeouts, timeoutDuration, type TimeoutConfig } from './timeouts.js';
export {
  HASH_BYTES,
  PROPOSAL_TAG,
  VOTE_TAG,
  proposalSignBytes,
  signProposal,
  signVote,
  verifyProposalSignature,
  verifyVoteSignature,
  voteSignBytes,
} from './encoding.js';
export { VoteSet, type AddVoteResult } from './vote-set.js';
export { evidenceId, makeEvidence, verifyEvidence } from './evidence.js';
export { verifyCommit } from './commit.js';
export { LastSignedGuard, type GuardDecision, type LastSignedEntry, type LastSignedState, type SignStep } from './last-signed-guard.js';
export { DoubleSignRefusedError, LocalPrivValidator, type LocalPrivValidatorOptions, type PrivValidator } from './priv-validator.js';
export {
  TendermintMachine,
  type DecideEffect,
  type EvidenceEffect,
  type LogEffect,
  type LogLevel,
  type MachineConfig,
  type MachineEffect,
  type MachineState,
  type ScheduleTimeoutEffect,
} from './machine.js';
export { ConsensusDriver, type ConsensusDriverOptions, type ConsensusEffect, type ValueHost } from './driver.js';
export * from './wire.js';
