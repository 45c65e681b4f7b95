import { ChainError, unavailable } from '../../../kernel/sdk.js';
import type { AiProviderConfig } from '../config.js';
import { GENERATOR_KINDS, TOKEN_FIELDS } from './token-params.js';

/** The longest prompt sent to the model (a question, not a document). */
export const MAX_PROMPT_CHARS = 2000;

/**
 * The most of a provider's reply the gateway reads (bytes): five fields of JSON fit in a few
 * hundred, so a reply past this is refused (502) and the rest of it never read, whatever the
 * provider sends. `max_tokens` asks the model for as much too.
 */
export const MAX_REPLY_BYTES = 64 * 1024;
const MAX_REPLY_TOKENS = 512;

/** The reply's text, at most `max` bytes (undefined when it is longer: the read stops there). */
export async function readCapped(res: Response, max: number): Promise<string | undefined> {
  if (res.body === null) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

const INSTRUCTIONS = [
  'You fill the parameters of a contract generated from a fixed, audited template.',
  'You never write code: answer one JSON object and nothing else, with exactly these keys:',
  `"kind" (one of ${GENERATOR_KINDS.map((k) => `"${k}"`).join(', ')}), "name" (1-64 characters), "symbol" (1-12 characters of A-Z and 0-9),`,
  '"decimals" (an integer 0-18), "total_supply" (an integer from 1, in whole tokens).',
].join(' ');

/**
 * Asks the external model (AI_PROVIDER_URL, an OpenAI-compatible chat completions endpoint) to
 * fill generate's fields from a `prompt` (part 1, Gateway background behaviour 4; decisions.md
 * §52). The model's answer is read as data only: the keys of TOKEN_FIELDS and `kind`, which the
 * caller then holds to the same checks as fields a client sends; anything else it says, code
 * above all, is dropped. The API key goes in the Authorization header and nowhere else: a
 * provider's error text is redacted before it reaches a message or a log.
 */
export async function fillParamsFromPrompt(provider: AiProviderConfig, prompt: string): Promise<Record<string, unknown>> {
  let res: Response;
  try {
    res = await fetch(provider.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${provider.apiKey.reveal()}` },
      body: JSON.stringify({ model: provider.model, temperature: 0, max_tokens: MAX_REPLY_TOKENS, response_format: { type: 'json_object' }, messages: [{ role: 'system', content: INSTRUCTIONS }, { role: 'user', content: prompt }] }),
      signal: AbortSignal.timeout(provider.timeoutMs),
    });
  } catch (e: unknown) {
    throw unavailable(`the model provider did not answer: ${provider.apiKey.redact(e instanceof Error ? e.message : String(e))}`, 'send the fields (kind, name, symbol, decimals, total_supply) instead of a prompt');
  }
  const capped = await readCapped(res, MAX_REPLY_BYTES).catch(() => '');
  if (capped === undefined) throw new ChainError(502, `the model provider's reply is longer than ${MAX_REPLY_BYTES} bytes: it was not read`, 'send the fields (kind, name, symbol, decimals, total_supply) instead of a prompt');
  const text = capped;
  if (!res.ok) throw new ChainError(502, `the model provider answered ${res.status}: ${provider.apiKey.redact(text).slice(0, 200)}`, 'send the fields (kind, name, symbol, decimals, total_supply) instead of a prompt');
  const content = messageContent(text);
  if (content === undefined) throw new ChainError(502, 'the model provider answered no message content', 'send the fields instead of a prompt');
  let fields: unknown;
  try {
    fields = JSON.parse(stripFence(content));
  } catch {
    throw new ChainError(502, 'the model did not answer a JSON object of parameters', 'send the fields instead of a prompt');
  }
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) throw new ChainError(502, 'the model did not answer a JSON object of parameters', 'send the fields instead of a prompt');
  const out: Record<string, unknown> = {};
  for (const k of ['kind', ...TOKEN_FIELDS]) if (k in fields) out[k] = (fields as Record<string, unknown>)[k];
  return out;
}

/** `choices[0].message.content` of a chat completions answer. */
function messageContent(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { choices?: Array<{ message?: { content?: unknown } }> };
    const c = body.choices?.[0]?.message?.content;
    return typeof c === 'string' ? c : undefined;
  } catch {
    return undefined;
  }
}

/** Models often wrap JSON in a ``` fence even when asked not to. */
function stripFence(s: string): string {
  const m = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/.exec(s);
  return m ? m[1]! : s;
}
