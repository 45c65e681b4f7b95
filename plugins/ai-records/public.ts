/**
 * What other code may import of ai-records (test/sdk-boundary.test.ts refuses any other file of
 * it): its read routes' schemas, the registration body, and its events. It offers no methods.
 */
export { ExportQuery, IdParams, LogEntryView, ModelListQuery, ModelRegistryAnswer, ModelView, OracleLogAnswer, OracleLogQuery } from './schemas.js';
export { RegisterModelSchema } from './registry.js';
export { modelRegistered, modelVotingUpdate, oracleDecision } from './events.js';
