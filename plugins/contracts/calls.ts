import { badRequest, jsonTextDepth, parseHex } from '../../kernel/sdk.js';
import { duplicateJsonKey } from './json-keys.js';

/**
 * What the node makes of a transaction's `data` (part 1, Contract execution 1–4, 7): the bytes a
 * contract's `call(input_ptr, input_len)` receives. JSON with `function` (or the older `method`)
 * and `args` is normalised to compact JSON `{"function": f, "args": {...}, ...args}` (the args also
 * flattened at the top level; a top-level `caller` is never passed on: identity comes from
 * `get_caller`), with `args.amount` converted from whole tokens to the smallest unit with the
 * contract's `decimals`. Arguments may also come flattened at the top level of the data (item 3):
 * they join `args`; a name given twice (twice in one object, or both in `args` and at the top
 * level) is refused (400), since the contract would otherwise see one of them chosen silently.
 * Hex data is decoded first; hex that is not such JSON reaches the contract as it is.
 */

/**
 * Deepest nesting of arrays and objects a call's or a deploy's JSON data may have; deeper is
 * refused (400) before parsing: a contract chooses its data, and parsing, checking and storing
 * deeply nested data recurses in V8, whose stack limit depends on the node, so a depth near it
 * could fail a transaction on one validator and not on another. The depth is the kernel's
 * `jsonTextDepth`, measured without recursion.
 */
export const MAX_DATA_NESTING = 64;

function refuseDeepNesting(text: string, what: string): void {
  if (jsonTextDepth(text) > MAX_DATA_NESTING) throw badRequest(`${what} nests arrays and objects more than ${MAX_DATA_NESTING} deep`);
}

const BIG = '__contracts_bigint__';
const MAX_DECIMALS = 36;

/** Compact JSON where bigints are written as plain integer numbers (exact, whatever their size). */
export function compactJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? `${BIG}${v}` : v)).replace(new RegExp(`"${BIG}(\\d+)"`, 'g'), '$1');
}

/** Whole tokens (a decimal string or JSON number) in the smallest unit: `amount × 10^decimals`. */
export function toUnits(raw: unknown, decimals: number, field: string): bigint {
  let text: string;
  if (typeof raw === 'number') {
    if (!Number.isFinite(raw) || raw < 0) throw badRequest(`${field} must be a non-negative number of whole tokens`);
    text = String(raw);
  } else if (typeof raw === 'string') text = raw.trim();
  else throw badRequest(`${field} must be a decimal string or a number of whole tokens`);
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) throw badRequest(`${field} "${text}" is not a plain decimal amount`);
  const frac = (m[2] ?? '').replace(/0+$/, '');
  if (frac.length > decimals) throw badRequest(`${field} ${text} has more than the token's ${decimals} decimals`);
  return BigInt(m[1]!) * 10n ** BigInt(decimals) + BigInt(frac.padEnd(decimals, '0') || '0');
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Top-level names of call data that are not arguments. */
const CALL_FIELDS: ReadonlySet<string> = new Set(['function', 'method', 'args', 'caller']);

/** The normalised call input for `fn` with `args` (already converted). */
export function callJson(fn: string, args: Record<string, unknown>): string {
  const flat: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) if (!CALL_FIELDS.has(k)) flat[k] = v;
  return compactJson({ function: fn, args, ...flat });
}

/** `args` with the arguments flattened at the top level of the call data; 400 for a name given twice. */
function mergedArgs(parsed: Record<string, unknown>, args: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...args };
  for (const [k, v] of Object.entries(parsed)) {
    if (CALL_FIELDS.has(k)) continue;
    if (Object.hasOwn(args, k)) throw badRequest(`argument "${k}" is given twice (in args and at the top level): argument names must be unique`);
    merged[k] = v;
  }
  return merged;
}

/** Args with `amount` converted with the contract's decimals. */
export function convertArgs(args: Record<string, unknown>, decimals: number): Record<string, unknown> {
  if (!('amount' in args)) return args;
  return { ...args, amount: toUnits(args.amount, decimals, 'args.amount') };
}

export interface CallInput {
  /** The function named, when the data is JSON that names one. */
  readonly fn: string | undefined;
  readonly bytes: Uint8Array;
}

const HEX = /^(0x)?([0-9a-fA-F]{2})+$/;
const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder('utf-8', { fatal: true });

/** A contract call's input from a transaction's `data` (undefined or empty: no input). */
export function callInput(data: string | undefined, decimals: number): CallInput {
  if (data === undefined || data.length === 0) return { fn: undefined, bytes: new Uint8Array(0) };
  let text: string | undefined = data;
  let raw: Uint8Array | undefined;
  if (HEX.test(data) && !/^\d+$/.test(data)) {
    raw = parseHex(data) ?? undefined;
    try {
      text = raw ? fromUtf8.decode(raw) : undefined;
    } catch {
      text = undefined;
    }
  }
  if (text !== undefined) refuseDeepNesting(text, 'data');
  let parsed: unknown;
  try {
    parsed = text === undefined ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!isObject(parsed)) {
    if (raw) return { fn: undefined, bytes: raw };
    throw badRequest('data must be a JSON object with "function" and "args" (or hex)');
  }
  const fn = parsed.function ?? parsed.method;
  if (typeof fn !== 'string' || fn.length === 0) throw badRequest('data must name the contract function in "function" (or "method")');
  const args = parsed.args ?? {};
  if (!isObject(args)) throw badRequest('data.args must be an object');
  const twice = duplicateJsonKey(text ?? '');
  if (twice !== undefined) throw badRequest(`"${twice}" appears twice in one object of the call data: argument names must be unique`);
  return { fn, bytes: utf8.encode(callJson(fn, convertArgs(mergedArgs(parsed, args), decimals))) };
}

export interface DeployRequest {
  /** Null when the deploy names a template and omits its bytes (decisions.md §51: the template's are used). */
  readonly bytecode: Uint8Array | null;
  readonly name: string;
  readonly description: string;
  readonly template: string | null;
  /** init_args as given, when the deploy carries them. */
  readonly initArgs: Record<string, unknown> | undefined;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

function text(v: unknown, field: string, max: number): string {
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw badRequest(`${field} must be a string`);
  if (v.length > max) throw badRequest(`${field} is longer than ${max} characters`);
  return v;
}

/** A deploy's fields (part 1, "Deploy transaction data fields"), from a data object or an operation body. */
export function deployRequest(fields: Record<string, unknown>, maxBytes: number): DeployRequest {
  let bytecode: Uint8Array | null = null;
  if (typeof fields.bytecode_hex === 'string' && fields.bytecode_hex.length > 0) {
    bytecode = parseHex(fields.bytecode_hex);
    if (!bytecode) throw badRequest('bytecode_hex is not hex');
  } else if (typeof fields.base64_wasm === 'string' && fields.base64_wasm.length > 0) {
    if (!BASE64.test(fields.base64_wasm)) throw badRequest('base64_wasm is not base64');
    bytecode = new Uint8Array(Buffer.from(fields.base64_wasm, 'base64'));
  }
  const template = text(fields.template, 'template', 64);
  if (bytecode?.length === 0 || (bytecode === null && !template)) throw badRequest('a deploy needs bytecode_hex or base64_wasm (or a template)');
  if (bytecode !== null && bytecode.length > maxBytes) throw badRequest(`bytecode is ${bytecode.length} bytes, above contract_max_bytecode_bytes (${maxBytes})`);
  const init = fields.init_args;
  if (init !== undefined && init !== null && !isObject(init)) throw badRequest('init_args must be an object');
  return { bytecode, name: text(fields.name, 'name', 64), description: text(fields.description, 'description', 1000), template: template || null, initArgs: isObject(init) ? init : undefined };
}

/** A deploy's fields from a plain transaction's `data` (JSON text, or hex of it). */
export function deployFromData(data: string | undefined, maxBytes: number): DeployRequest {
  if (data === undefined || data.length === 0) throw badRequest('a deploy carries its fields in data (JSON)');
  let textData = data;
  if (HEX.test(data) && !data.trimStart().startsWith('{')) {
    const raw = parseHex(data);
    if (raw) textData = Buffer.from(raw).toString('utf8');
  }
  refuseDeepNesting(textData, 'deploy data');
  let parsed: unknown;
  try {
    parsed = JSON.parse(textData);
  } catch {
    throw badRequest('deploy data must be a JSON object');
  }
  if (!isObject(parsed)) throw badRequest('deploy data must be a JSON object');
  return deployRequest(parsed, maxBytes);
}

/**
 * The `decimals` a deploy's init_args name (part 1, Contract execution 4): a JSON number; a
 * string (or anything else) counts as 0.
 */
export function initDecimals(init: Record<string, unknown> | undefined): number {
  const d = init?.decimals;
  if (typeof d !== 'number' || !Number.isSafeInteger(d) || d < 0) return 0;
  if (d > MAX_DECIMALS) throw badRequest(`init_args.decimals ${d} is above ${MAX_DECIMALS}`);
  return d;
}

/** The `initialize` input: init_args with total_supply converted, flattened at the top level. */
export function initializeInput(init: Record<string, unknown>, decimals: number): Uint8Array {
  const args = 'total_supply' in init ? { ...init, total_supply: toUnits(init.total_supply, decimals, 'init_args.total_supply') } : init;
  return utf8.encode(callJson('initialize', args));
}
