/**
 * What other code may import of identity (test/sdk-boundary.test.ts refuses any other file of it):
 * its methods (`removedSince`: whether a key stopped counting for an account since a height), the
 * signed layouts its operations take (for clients and tests), the bodies' schemas and its events.
 */
export { identityMethods } from './methods.js';
export { identityMessages } from './messages.js';
export { CancelSchema, GuardianVoteSchema, RequestSchema, RotateSchema, SetupSchema, WithdrawSchema } from './schemas.js';
export { IDENTITY_EVENTS, keysRotated, recoveryApproved, recoveryClosed, recoveryCompleted, recoveryRejected, recoveryRequested, recoverySetupDone } from './events.js';
