/**
 * What other code may import of the contracts plugin (test/sdk-boundary.test.ts refuses any other
 * file of it): the deploy gate seam the contract analyzer taps (part 1, Contract execution 9;
 * decisions.md §47), the host API its imports are judged against, the gas a deploy of given bytes
 * is charged, and the methods it offers (a contract's record and code; the operators' score).
 */
export { deployGate } from './index.js';
export { contractAddress, DEPLOY_ADDRESS, type ContractSecurity, type DeployCandidate, type DeployCheck, type ScoreSource } from './execute.js';
export { deployGasOf } from './deploy-gas.js';
export { HOST_FUNCTIONS, HOST_MODULE } from './vm/host-api.js';
export { contractsMethods } from './methods.js';
export type { ContractRecord } from './store.js';
