import { Type, type TSchema } from '@sinclair/typebox';
import { AddressString, defineRoute, HexBytes, pageAnswer, TxHashString } from '../../kernel/sdk.js';
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

/** decisions.md §50: a certificate record. */
export const CertificateRecord = Type.Object({
  id: Type.Integer({ minimum: 1, description: 'from 1, in the order applied' }),
  contract: Type.String({ description: 'the certified .app' }),
  owner: Type.String({ description: 'the contract\'s owner' }),
  issuer: Type.String({ description: 'the operator who certified it' }),
  code_hash: Type.String(),
  security_score: Score('the contract\'s at that height'),
  risk_score: Score('the contract\'s at that height'),
  model: Type.String(),
  note: Type.String({ maxLength: 280 }),
  height: Type.Integer({ minimum: 1 }),
  tx_hash: Type.String(),
});

/** What a node answers an admitted signed submission: its hash and state (as a transfer's submission response). */
const Submitted = Type.Object({ tx_hash: TxHashString, status: Type.String({ description: 'pending' }) });

/** The signature fields every signed body carries (part 2, Signed message layouts). */
const Signed = { signature: Type.String(), public_key: Type.String(), nonce: Type.Integer({ minimum: 0 }) };

/** decisions.md §50: certify (signs for chain:system.cert). */
export const CertifyBody = Type.Object({ signer: AddressString, contract: AddressString, note: Type.Optional(Type.String({ maxLength: 280 })), ...Signed });

/** decisions.md §51: a template's registration (signs for chain:system.templates). */
export const TemplateRegisterBody = Type.Object({
  author: AddressString,
  name: Type.String({ minLength: 1, maxLength: 64 }),
  description: Type.Optional(Type.String({ maxLength: 1000 })),
  category: Type.Optional(Type.String()),
  bytecode_hex: Type.String(),
  abi_json: Type.Optional(Type.String({ maxLength: 65536 })),
  fee_unro: Type.Optional(Type.Integer({ minimum: 0, maximum: 1e15 })),
  ...Signed,
});

const CertificateFilters = Type.Object({
  owner: Type.Optional(Type.String({ description: 'the contract\'s owner' })),
  contract: Type.Optional(Type.String()),
  issuer: Type.Optional(Type.String()),
  limit: Type.Optional(Type.Integer({ minimum: 1 })),
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
  page: Type.Optional(Type.Integer({ minimum: 1 })),
});

/**
 * Part 1's certificate and template submissions and reads (decisions.md §50–51), forwarded to a
 * node as they are where no plugin of the build declares them (ai-routes.ts): described here
 * from the spec; the node judges bodies and signatures.
 */
export const SECURITY_FORWARDS = {
  certify: defineRoute({ method: 'POST', path: '/api/v1/contracts/certify', summary: 'issue a security certificate (decisions.md §50; signs for chain:system.cert), forwarded', body: CertifyBody, bodyCheck: 'handler', responses: { 200: Submitted, 400: 'a bad body, or this issuer certified this code already', 401: 'the signature does not verify', 403: 'the signer is no operator', 404: 'no such contract' } }),
  templateRegister: defineRoute({ method: 'POST', path: '/api/v1/templates/register', summary: 'register a contract template (decisions.md §51; signs for chain:system.templates), forwarded', body: TemplateRegisterBody, bodyCheck: 'handler', responses: { 200: Submitted, 400: 'a bad field, bytecode refused by the deploy checks', 401: 'the signature does not verify', 403: 'the author is no .node of the signer, or the gate refuses the bytecode', 404: 'no plugin of the node serves templates on this network', 409: 'the author has a template of that name' } }),
  certificates: defineRoute({ method: 'GET', path: '/api/v1/certificates', summary: 'certificates, newest first (decisions.md §50), forwarded', query: CertificateFilters, responses: { 200: pageAnswer('certificates', CertificateRecord), 404: 'no plugin of the node serves certificates on this network' } }),
  certificate: defineRoute({ method: 'GET', path: '/api/v1/certificates/:id', summary: 'one certificate (decisions.md §50), forwarded', params: Type.Object({ id: Type.String({ pattern: '^[0-9]{1,15}$' }) }), responses: { 200: CertificateRecord, 404: 'no such certificate' } }),
  contractCertificate: defineRoute({ method: 'GET', path: '/api/v1/certificates/contract/:address', summary: 'a contract\'s newest certificate (decisions.md §50), forwarded', params: Type.Object({ address: AddressString }), responses: { 200: CertificateRecord, 404: 'the contract has none' } }),
} as const;
