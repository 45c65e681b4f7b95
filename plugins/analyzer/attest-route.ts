import { defineRoute, deriveAddress, toHex, type NodeServices, type ReadContext } from '../../kernel/sdk.js';
import { analyzeBody, type Analysis } from './analyze-route.js';
import { AnalyzeBody, AttestationAnswer } from './schemas.js';

export const attestRoute = defineRoute({
  method: 'POST',
  path: '/api/v1/contracts/attest',
  summary: "an analysis signed with the node's own key: the IBC attestation packet (decisions.md §48)",
  body: AnalyzeBody,
  responses: {
    200: AttestationAnswer,
    400: 'as POST /api/v1/contracts/analyze',
    404: 'no contract at address',
    429: "over the analyzer's analysis_rpm per IP in 60 s, shared with analyze (Retry-After)",
  },
});

/** §48: the text the node signs, fields joined by `|` (§5). */
export const attestationMessage = (bytecodeHash: string, score: number, model: string, timestamp: number, subject: string): string => `ch-ibc-attest-v1|${bytecodeHash}|${score}|${model}|${timestamp}|${subject}`;

/**
 * §48's answer: §47's analysis, signed. The signer is the node's `.node` while it is in the
 * validator set at the last committed height, else the address its key derives.
 */
export async function attest(ctx: ReadContext, s: Pick<NodeServices, 'nodeKey' | 'now'>, body: typeof AnalyzeBody.static): Promise<Analysis & typeof AttestationAnswer.static> {
  const a = await analyzeBody(ctx, body);
  const timestamp = s.now();
  const subject = a.address ?? a.bytecode_hash;
  const message = attestationMessage(a.bytecode_hash, a.security_score, a.model, timestamp, subject);
  const signature = s.nodeKey.signStatement('ch-ibc-attest-v1', message);
  const validator = (await ctx.validators.latest()).some((v) => v.address === s.nodeKey.address);
  return { ...a, score: a.security_score, timestamp, subject, message, signature: toHex(signature), pubkey: toHex(s.nodeKey.publicKey), signer: validator ? s.nodeKey.address : deriveAddress(s.nodeKey.publicKey) };
}
