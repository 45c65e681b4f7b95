import { badRequest, defineRoute, isAddress, notFound, parseHex, sha3Hex0x, type ReadContext } from '../../kernel/sdk.js';
import { contractsMethods, deployGasOf } from '../contracts/public.js';
import { analyze, mlScore } from './analysis.js';
import { analyzerMethods } from './methods.js';
import { PARAMS } from './params.js';
import { UnreadableModule } from './scan.js';
import { AnalysisAnswer, AnalyzeBody } from './schemas.js';

export const analyzeRoute = defineRoute({
  method: 'POST',
  path: '/api/v1/contracts/analyze',
  summary: 'static-v1 analysis of a module or of a deployed contract\'s code (decisions.md §46–47)',
  body: AnalyzeBody,
  nodeOnly: true,
  responses: {
    200: AnalysisAnswer,
    400: 'bytecode_hex missing, odd-length or not hex, bytes that are not a valid WebAssembly module, or more than contract_max_bytecode_bytes',
    404: 'no contract at address',
    429: "over the analyzer's analysis_rpm per IP in 60 s (Retry-After)",
  },
});

export type Analysis = typeof AnalysisAnswer.static;

/** The module `bytecode_hex` holds, held to §47's checks (400). */
export async function bytesOf(ctx: ReadContext, hex: string): Promise<Uint8Array> {
  const bytes = parseHex(hex);
  if (bytes === null) throw badRequest(hex.replace(/^0x/, '').length % 2 !== 0 ? 'bytecode_hex has an odd number of hex digits' : 'bytecode_hex is not hex');
  if (bytes.length === 0) throw badRequest('bytecode_hex is empty');
  const max = await ctx.params.get('contract_max_bytecode_bytes');
  if (BigInt(bytes.length) > max) throw badRequest(`the bytecode is ${bytes.length} bytes, more than contract_max_bytecode_bytes (${max})`);
  // The engine's validator judges validity (off consensus: an answer, not a state change).
  if (!WebAssembly.validate(bytes)) throw badRequest('bytecode_hex is not a valid WebAssembly module');
  return bytes;
}

/** §47's answer for `bytes` at the context's (last committed) height. */
export async function analysisOf(ctx: ReadContext, bytes: Uint8Array): Promise<Analysis> {
  const hash = sha3Hex0x(bytes);
  let a;
  try {
    a = analyze(bytes, hash);
  } catch (err) {
    if (err instanceof UnreadableModule) throw badRequest(`bytecode_hex is not a WebAssembly module the analyzer can read: ${err.message}`);
    throw err;
  }
  const whitelisted = await ctx.methods.of(analyzerMethods).trusted(hash);
  const threshold = await ctx.params.get(PARAMS.threshold);
  return {
    risk_score: a.risk_score,
    security_score: whitelisted ? 100 : 100 - a.risk_score,
    safe: whitelisted || BigInt(a.risk_score) < threshold,
    ml_score: mlScore(a.risk_score),
    model: a.model,
    violations: a.violations.map((v) => ({ ...v })),
    gas_estimate: await deployGasOf(ctx.params, bytes),
    bytecode_hash: hash,
    size: bytes.length,
    whitelisted,
  };
}

/** The body's subject: its bytes, or a deployed contract's code with its record's fields (§47). */
export async function analyzeBody(ctx: ReadContext, body: typeof AnalyzeBody.static): Promise<Analysis> {
  if (body.bytecode_hex !== undefined && body.address !== undefined) throw badRequest('give bytecode_hex or address, not both');
  if (body.address !== undefined) {
    if (!isAddress(body.address)) throw badRequest(`address "${body.address}" is not a chain address`);
    const c = await ctx.methods.of(contractsMethods).contract(body.address);
    if (!c) throw notFound(`no contract at ${body.address}`);
    const a = await analysisOf(ctx, c.code);
    return { ...a, address: c.record.address, code_hash: c.record.code_hash, recorded_security_score: c.record.security_score ?? null, recorded_model: c.record.model ?? null };
  }
  if (body.bytecode_hex === undefined) throw badRequest('bytecode_hex is missing (or give the address of a deployed contract)');
  return analysisOf(ctx, await bytesOf(ctx, body.bytecode_hex));
}
