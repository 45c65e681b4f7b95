/**
 * What other code may import of governance (test/sdk-boundary.test.ts refuses any other file of
 * it): its read routes' schemas (the assistant tool server builds `ch_list_proposals` from the
 * list query) and its events. It offers no methods.
 */
export { ProposalAnswer, ProposalListAnswer, ProposalListQuery, ProposalParams, ProposalView, VoteView } from './schemas.js';
export { proposalCreated, proposalClosed, voteCast } from './events.js';
