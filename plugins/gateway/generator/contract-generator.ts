import { badRequest, ChainError, parseHex, sha3Hex0x, unavailable } from '../../../kernel/sdk.js';
import type { AiProviderConfig } from '../config.js';
import { isObject, type NodeAnswer } from '../node-client.js';
import { upstreamPath } from '../upstream-path.js';
import { fillParamsFromPrompt, MAX_PROMPT_CHARS } from './llm-params.js';
import { KIND_TEMPLATES, type TemplateSource } from './template-sources.js';
import { GENERATOR_KINDS, generatorKind, initArgs, TOKEN_FIELDS, tokenParams, type GeneratorKind, type TokenParams } from './token-params.js';

/** decisions.md §52's `generator` of the built-in generator. */
export const BUILTIN_GENERATOR = 'builtin-v1';

export interface GeneratorDeps {
  /** A read of the node (cached): the shipped template's record. */
  readonly read: (path: string) => Promise<NodeAnswer>;
  /** The node's analysis of bytecode (POST /api/v1/contracts/analyze), status and body as it answered. */
  readonly analyze: (bytecodeHex: string) => Promise<NodeAnswer>;
  /** The template sources the build wrote; undefined when it did not. */
  readonly sources: Readonly<Record<string, TemplateSource>> | undefined;
  /** With AI_PROVIDER_API_KEY: the model that may fill the fields from a prompt. */
  readonly provider: AiProviderConfig | undefined;
}

const ALLOWED_FIELDS: ReadonlySet<string> = new Set(['kind', ...TOKEN_FIELDS]);

/**
 * Contract generation (decisions.md §52; part 1, Gateway background behaviour 4). The bytecode
 * is always a shipped template's, compiled by `npm run build` and served by the node (its
 * `GET /api/v1/templates/:id`, the bytes the node recognises as shipped); a request only chooses
 * the kind and the parameters the contract is initialised with (`init_args`). With an external
 * model configured, a `prompt` may stand for the fields: the model fills them, and they are held
 * to the same checks; it never supplies code.
 */
export class ContractGenerator {
  constructor(private readonly d: GeneratorDeps) {}

  get mode(): 'builtin' | 'llm' {
    return this.d.provider === undefined ? 'builtin' : 'llm';
  }

  get kinds(): readonly string[] {
    return GENERATOR_KINDS;
  }

  async generate(body: unknown): Promise<Record<string, unknown>> {
    if (!isObject(body)) throw badRequest('send a JSON object: {"kind", "name", "symbol", "decimals", "total_supply"}');
    const { fields, generator } = await this.fieldsOf(body);
    const { kind, params } = checkedFields(fields, generator !== BUILTIN_GENERATOR);
    const { template } = KIND_TEMPLATES[kind];
    const source = this.d.sources?.[kind];
    if (source === undefined) throw unavailable('the generator\'s template sources are not built on this gateway', 'run npm run build');
    const shipped = await this.d.read(upstreamPath('/api/v1/templates/:id', { id: template }));
    if (shipped.status !== 200 || !isObject(shipped.body) || typeof shipped.body.bytecode_hex !== 'string') throw unavailable(`the node does not serve the shipped template ${template} (GET /api/v1/templates/${template} answered ${shipped.status})`);
    if (shipped.body.builtin === false) throw unavailable(`template ${template} on the node is not the shipped one (builtin: false)`);
    const bytecodeHex = shipped.body.bytecode_hex;
    const bytes = parseHex(bytecodeHex);
    if (bytes === null) throw unavailable(`the node's template ${template} carries no valid bytecode_hex`);
    const bytecodeHash = sha3Hex0x(bytes);
    if (shipped.body.bytecode_hash !== undefined && shipped.body.bytecode_hash !== bytecodeHash) throw unavailable(`the node's template ${template}: bytecode_hash does not match its bytecode`);
    const analysis = await this.d.analyze(bytecodeHex);
    if (analysis.status !== 200) throw analysisRefusal(analysis);
    return {
      kind,
      generator,
      template,
      source: source.source,
      abi: shipped.body.abi ?? null,
      bytecode_hex: bytecodeHex,
      bytecode_hash: bytecodeHash,
      init_args: initArgs(params),
      analysis: analysis.body,
    };
  }

  private async fieldsOf(body: Record<string, unknown>): Promise<{ fields: Record<string, unknown>; generator: string }> {
    if (!('prompt' in body)) {
      const unknown = Object.keys(body).filter((k) => !ALLOWED_FIELDS.has(k));
      if (unknown.length > 0) throw badRequest(`generate takes kind, name, symbol, decimals and total_supply; not ${unknown.map((k) => `"${k}"`).join(', ')} (the bytecode always comes from a shipped template)`);
      return { fields: body, generator: BUILTIN_GENERATOR };
    }
    const provider = this.d.provider;
    if (provider === undefined) throw badRequest('prompt needs an external model (AI_PROVIDER_API_KEY), which this gateway does not have', 'send kind, name, symbol, decimals and total_supply');
    const others = Object.keys(body).filter((k) => k !== 'prompt');
    if (others.length > 0) throw badRequest(`send either a prompt or the fields, not both (got prompt with ${others.map((k) => `"${k}"`).join(', ')})`);
    const prompt = body.prompt;
    if (typeof prompt !== 'string' || prompt.trim().length === 0 || prompt.length > MAX_PROMPT_CHARS) throw badRequest(`prompt must be text of 1 to ${MAX_PROMPT_CHARS} characters`);
    return { fields: await fillParamsFromPrompt(provider, prompt), generator: `llm:${provider.model}` };
  }
}

/** The kind and parameters; fields a model filled that fail the checks are the model's fault (502), not the client's (400). */
function checkedFields(fields: Record<string, unknown>, fromModel: boolean): { kind: GeneratorKind; params: TokenParams } {
  try {
    return { kind: generatorKind(fields.kind), params: tokenParams(fields) };
  } catch (e: unknown) {
    if (!fromModel) throw e;
    throw new ChainError(502, `the model's parameters were refused: ${(e as Error).message}`, 'rephrase the prompt, or send the fields');
  }
}

/** A node that answers no analysis (an analyzer-less build: the route is missing) is 503; any other answer keeps its status. */
export function analysisRefusal(a: NodeAnswer): ChainError {
  const message = isObject(a.body) && typeof a.body.error === 'string' ? a.body.error : `the node answered ${a.status}`;
  if (isAnalyzerMissing(a)) return unavailable(CONTRACT_ANALYSIS_OFF, 'no node of this network serves POST /api/v1/contracts/analyze');
  return new ChainError(a.status >= 400 && a.status < 600 ? a.status : 502, message);
}

export const CONTRACT_ANALYSIS_OFF = 'contract analysis is not enabled on this network';

/** The node's router answer for a route it does not have (kernel/rpc/router.ts: 405, or 404 "not found: POST …"). */
export function isAnalyzerMissing(a: NodeAnswer): boolean {
  if (a.status === 405) return true;
  return a.status === 404 && isObject(a.body) && typeof a.body.error === 'string' && a.body.error.startsWith('not found: POST ');
}
