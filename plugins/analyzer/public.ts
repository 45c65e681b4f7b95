/**
 * What other code may import of the analyzer (test/sdk-boundary.test.ts refuses any other file of
 * it): the answers of its routes (the gateway's audit forwards §47's answer unchanged), the
 * methods it offers (whether a code hash is trusted), the whitelist read's declaration (the gateway
 * forwards it under the same one), and static-v1 itself (a client or a tool
 * may score bytes the way every validator does).
 */
export { AnalysisAnswer, AnalyzeBody, AttestationAnswer, ViolationView } from './schemas.js';
export { analyzerMethods } from './methods.js';
export { whitelistRoute } from './whitelist-route.js';
export { analyzeStaticV1, RULES, STATIC_V1, type StaticAnalysis, type Violation } from './static-v1.js';
export { UnreadableModule } from './scan.js';
