/**
 * What other code may import of the contracts plugin (test/sdk-boundary.test.ts refuses any other
 * file of it): where deploys go and where a deploy puts its contract and the form of that address, the bodies' and answers'
 * schemas, the read routes' declarations, its events, the deploy gate the contract analyzer taps
 * (part 1, Contract execution 9; decisions.md §47), the host API imports are judged against, the
 * gas a deploy of given bytes is charged, and the methods it offers (a contract's record and
 * code, its owner for names' `.app` binding (decisions.md §42); the operators' score).
 */
export { contractAddress, isContractAddress } from './address.js';
export { DEPLOY_ADDRESS, CONTRACT_BASE_GAS, type ContractSecurity, type DeployCandidate, type DeployCheck, type ScoreSource } from './execute.js';
export { deployGate } from './index.js';
export { CallBody, ContractAddressString, ContractEventView, ContractParams, ContractView, DeployBody, DryRunAnswer, TemplateView, TokenTransferView } from './schemas.js';
export { CONTRACTS_ROUTES, callRoute, contractEventsRoute, contractRoute, contractsRoute, templateRoute, templatesRoute, tokenTransfersRoute } from './routes.js';
export { CONTRACTS_EVENTS, contractCalled, contractDeployed, contractEvent } from './events.js';
export { deployBodyGas, deployGasOf } from './deploy-gas.js';
export { HOST_FUNCTIONS, HOST_MODULE } from './vm/host-api.js';
export { contractsMethods } from './methods.js';
export type { ContractRecord } from './store.js';
