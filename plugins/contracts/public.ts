/**
 * What other code may import of the contracts plugin (test/sdk-boundary.test.ts refuses any other
 * file of it): where deploys go and where a deploy puts its contract, the bodies' and answers'
 * schemas, the read routes' declarations, its events, and the deploy gate a contract analyzer
 * taps (part 1, Contract execution 9). It offers no methods.
 */
export { contractAddress, DEPLOY_ADDRESS, CONTRACT_BASE_GAS, type DeployCandidate, type DeployCheck } from './execute.js';
export { deployGate } from './index.js';
export { CallBody, ContractAddressString, ContractEventView, ContractParams, ContractView, DeployBody, DryRunAnswer, TemplateView, TokenTransferView } from './schemas.js';
export { CONTRACTS_ROUTES, callRoute, contractEventsRoute, contractRoute, contractsRoute, templateRoute, templatesRoute, tokenTransfersRoute } from './routes.js';
export { CONTRACTS_EVENTS, contractCalled, contractDeployed, contractEvent } from './events.js';
