import { Type, type TSchema } from '@sinclair/typebox';
import { AddressString, defineRoute } from '../../kernel/sdk.js';
import { AuditBody } from './schemas.js';
import { AnalysisAnswer as ContractAnalysis, AnalyzeBody, AttestationAnswer } from '../analyzer/public.js';

/**
 * The gateway's contract-security and AI routes (decisions.md §47–48, §52), declared with their
 * schemas like the gateway's other routes (declarations.ts): what its API reference shows and
 * CHAIN_VALIDATE_RESPONSES holds the answers to. The bodies of the AI routes are checked by their
 * handlers (`bodyCheck: 'handler'`), after the request has spent its AI budget: every request
 * counts, whatever its answer (§52).
 */

const Count = (description?: string) => Type.Integer({ minimum: 0, ...(description ? { description } : {}) });
const Score = (description: string) => Type.Integer({ minimum: 0, maximum: 100, description });

/**
 * decisions.md §47–48: the node's analysis and attestation, forwarded unchanged, so declared with
 * the analyzer's own schemas (one declaration for the node's route and the gateway's).
 */
export { AnalysisAnswer as ContractAnalysis } from '../analyzer/public.js';

const SOURCE_REFUSED = '400: a body with source, source_code or code (source code is not accepted), or bytecode_hex missing, odd-length, non-hex or not a WebAssembly module; 429: AI_RL_MAX_RPM';

export const ReauditBody = Type.Object({ address: { ...AddressString, description: 'a deployed contract (.app)' } }, { additionalProperties: false });

const GenerateFields = {
  kind: Type.Optional(Type.String({ description: 'token' })),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  symbol: Type.Optional(Type.String({ pattern: '^[A-Z0-9]{1,12}$' })),
  decimals: Type.Optional(Type.Integer({ minimum: 0, maximum: 18 })),
  total_supply: Type.Optional(Type.Integer({ minimum: 1, description: 'whole tokens; total_supply × 10^decimals ≤ 2^64 − 1' })),
  prompt: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'only with AI_PROVIDER_API_KEY, instead of the fields: the model fills them, never code' })),
};
export const GenerateBody = Type.Object(GenerateFields);

export const GenerateAnswer = Type.Object({
  kind: Type.String(),
  generator: Type.String({ description: 'builtin-v1, or llm:<model> when a model filled the fields' }),
  template: Type.String({ description: 'the shipped template the bytecode is' }),
  source: Type.String({ description: 'its AssemblyScript source' }),
  abi: Type.Unknown(),
  bytecode_hex: Type.String(),
  bytecode_hash: Type.String(),
  init_args: Type.Object({ name: Type.String(), symbol: Type.String(), decimals: Type.Integer(), total_supply: Type.Unknown({ description: 'a JSON integer (whole tokens)' }) }),
  analysis: ContractAnalysis,
});

export const AttestBody = AnalyzeBody;

export const AttestAnswer = AttestationAnswer;

export const AssistantHealth = Type.Object({ enabled: Type.Boolean(), model: Type.String(), documents: Count('Markdown files in the index') });

export const AskBody = Type.Object({ question: Type.String({ minLength: 1, maxLength: 2000 }) });

export const AskAnswer = Type.Object({
  answer: Type.String({ description: 'the text of the best-matching passages; empty when none match' }),
  sources: Type.Array(Type.Object({ path: Type.String(), title: Type.String(), score: Type.Number() })),
  model: Type.String(),
});

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

/** The figures decisions.md §52 adds to GET /api/v1/ai/status. */
export const AiStatusFigures = {
  analyzer: Type.Object({ model: Nullable(Type.String({ description: 'the node analyzer\'s model; null when no node analyses' })) }),
  generator: Type.Object({ mode: Type.Union([Type.Literal('builtin'), Type.Literal('llm')]), kinds: Type.Array(Type.String()) }),
  assistant: Type.Object({ enabled: Type.Boolean(), model: Type.String() }),
  contract_alerts: Type.Object({ check_interval_ms: Count(), spike_low_threshold: Count(), spike_high_threshold: Count(), low_score_threshold: Count(), cooldown_ms: Count(), model: Type.String() }),
  rate_limit: Type.Object({ ai_rl_max_rpm: Count('0 = off') }),
};

export const AI_ROUTES = {
  audit: defineRoute({ method: 'POST', path: '/api/v1/contracts/audit', summary: 'the node\'s analysis of bytecode (decisions.md §52), status and body unchanged; source code is not accepted', body: AuditBody, bodyCheck: 'handler', responses: { 200: ContractAnalysis, 400: SOURCE_REFUSED, 429: 'over AI_RL_MAX_RPM in 60 s (Retry-After)', 503: 'no node analyses contracts' } }),
  reaudit: defineRoute({ method: 'POST', path: '/api/v1/contracts/reaudit', summary: 'the node\'s analysis of a deployed contract by address (decisions.md §47, §52), unchanged; changes nothing on chain', body: ReauditBody, bodyCheck: 'handler', responses: { 200: ContractAnalysis, 404: 'no contract at that address', 429: 'over AI_RL_MAX_RPM in 60 s (Retry-After)', 503: 'no node analyses contracts' } }),
  generate: defineRoute({ method: 'POST', path: '/api/v1/contracts/generate', summary: 'a contract from a shipped template, with its parameters and the node\'s analysis (decisions.md §52)', body: GenerateBody, bodyCheck: 'handler', responses: { 200: GenerateAnswer, 400: 'an unknown kind (the message names the kinds), a field out of range, or prompt without AI_PROVIDER_API_KEY', 429: 'over AI_RL_MAX_RPM in 60 s (Retry-After)', 502: 'the model answered no usable parameters', 503: 'no node analyses contracts, or the template is not served' } }),
  attest: defineRoute({ method: 'POST', path: '/api/v1/contracts/attest', summary: "an analysis signed with the node's own key: the IBC attestation packet (decisions.md §48)", description: 'forwarded to a node unchanged', body: AttestBody, bodyCheck: 'handler', responses: { 200: AttestAnswer, 404: 'no contract at that address', 503: 'no node attests' } }),
  assistantHealth: defineRoute({ method: 'GET', path: '/api/v1/assistant/health', summary: 'the documentation assistant: on or off, its model, the files indexed', responses: { 200: AssistantHealth } }),
  assistantAsk: defineRoute({ method: 'POST', path: '/api/v1/assistant/ask', summary: 'the best-matching passages of the project\'s documentation, with their sources (decisions.md §52)', body: AskBody, bodyCheck: 'handler', responses: { 200: AskAnswer, 400: 'question missing, empty or above 2 000 characters', 403: 'ASSISTANT_ENABLED is not 1', 429: 'over AI_RL_MAX_RPM in 60 s (Retry-After)', 503: 'the index is not built' } }),
} as const;
