import { badRequest, changeSchedule, forbidden, isChainError, readPluginSchedule, addressKind, type ChainError, type PluginScheduleChange, type ReadContext } from '../../kernel/sdk.js';
import { stakingMethods } from '../staking/public.js';
import { DEFAULT_VOTING_DURATION, MAX_DESCRIPTION_CHARS, MAX_PAYLOAD_BYTES, MAX_TITLE_CHARS, MIN_VOTING_DURATION, PROPOSAL_BYTES_PER_GAS, PROPOSAL_FREE_TEXT_BYTES } from './params.js';
import type { ProposalKind } from './store.js';

/** A PARAM_CHANGE's target: a protocol parameter, or a state plugin's schedule (decisions.md §26). */
export type ParamChange = { readonly kind: 'param'; readonly key: string; readonly value: bigint } | { readonly kind: 'plugin'; readonly change: PluginScheduleChange };

export const PLUGIN_KEY_PREFIX = 'plugin:';
const PLUGIN_VALUE = /^(activate|retire)@([1-9][0-9]{0,14})$/;
const PARAM_VALUE = /^-?[0-9]{1,40}$/;

/** Characters as a person counts them (code points), not UTF-16 units. */
const chars = (s: string): number => [...s].length;

/** Reads a PARAM_CHANGE payload, or says what is wrong with it (400). */
export function parseParamChange(payload: Readonly<Record<string, string>> | undefined): ParamChange | ChainError {
  const key = payload?.param_key;
  const value = payload?.param_value;
  if (typeof key !== 'string' || key.length === 0) return badRequest('payload.param_key is required for a PARAM_CHANGE (a parameter name, or plugin:<name>)');
  if (typeof value !== 'string') return badRequest('payload.param_value is required for a PARAM_CHANGE (a string)');
  if (key.startsWith(PLUGIN_KEY_PREFIX)) {
    const m = PLUGIN_VALUE.exec(value);
    if (!m) return badRequest(`payload.param_value of ${key} must be activate@<height> or retire@<height>, got ${JSON.stringify(value)}`);
    return { kind: 'plugin', change: { name: key.slice(PLUGIN_KEY_PREFIX.length), change: m[1] as 'activate' | 'retire', height: Number(m[2]) } };
  }
  if (!PARAM_VALUE.test(value)) return badRequest(`payload.param_value must be an integer written as a string, got ${JSON.stringify(value)}`);
  return { kind: 'param', key, value: BigInt(value) };
}

export interface ProposalInput {
  readonly proposer: string;
  readonly title: string;
  readonly description?: string;
  readonly kind: string;
  readonly payload?: Record<string, string>;
  readonly voting_duration?: number;
}

/**
 * Every rule of part 1, Governance 2–3 and decisions.md §26 a proposal must meet, at admission
 * and again in the block (`height` is the block it would be created in): the proposer's stake,
 * the kind, the limits, the window, and a PARAM_CHANGE that names something that exists.
 */
export async function proposalProblem(ctx: ReadContext, body: ProposalInput, height: number): Promise<ChainError | undefined> {
  if (body.kind !== 'text' && body.kind !== 'PARAM_CHANGE') return badRequest(`unknown proposal kind ${JSON.stringify(body.kind)}: text or PARAM_CHANGE`);
  if (chars(body.title) === 0) return badRequest('title is required');
  if (chars(body.title) > MAX_TITLE_CHARS) return badRequest(`title is longer than ${MAX_TITLE_CHARS} characters`);
  if (chars(body.description ?? '') > MAX_DESCRIPTION_CHARS) return badRequest(`description is longer than ${MAX_DESCRIPTION_CHARS} characters`);
  const payloadBytes = Buffer.byteLength(JSON.stringify(body.payload ?? {}), 'utf8');
  if (payloadBytes > MAX_PAYLOAD_BYTES) return badRequest(`payload is ${payloadBytes} bytes; at most ${MAX_PAYLOAD_BYTES} (10 KB)`);
  const duration = votingDuration(body);
  const max = await ctx.params.get('max_voting_duration_blocks');
  if (duration < MIN_VOTING_DURATION || BigInt(duration) > max) return badRequest(`voting_duration ${duration} is outside the window of ${MIN_VOTING_DURATION} to max_voting_duration_blocks (${max}) blocks`);
  if (body.kind === 'PARAM_CHANGE') {
    const change = parseParamChange(body.payload);
    if (isChainError(change)) return change;
    if (change.kind === 'param') {
      if (!(await isParameter(ctx, change.key))) return badRequest(`payload.param_key: unknown parameter "${change.key}" (GET /api/v1/governance/params lists them)`);
    } else {
      // decisions.md §26: a height before the tally is refused now; so is a change the schedule
      // could not take as it stands (an unknown plugin, activating an active one).
      const tally = height + duration;
      if (change.change.height <= tally) return badRequest(`${change.change.change}@${change.change.height}: the height must be after the tally at height ${tally} (creation ${height} + voting_duration ${duration})`);
      const next = changeSchedule(await readPluginSchedule(ctx), change.change, tally);
      if (typeof next === 'string') return badRequest(next);
    }
  }
  // Part 1, Governance 2: any address may propose; a .human must hold self-stake of at least
  // min_stake (decisions.md §31: 403, the signer lacks the role).
  if (addressKind(body.proposer) === 'human') {
    const stake = await ctx.methods.of(stakingMethods).selfStake(body.proposer);
    const min = await ctx.params.get('min_stake');
    if (!stake || stake.amount < min) return forbidden(`a .human proposer needs self-stake of at least min_stake (${min} ucoin); ${body.proposer} has ${stake?.amount ?? 0n}`);
  }
  return undefined;
}

export function votingDuration(body: Pick<ProposalInput, 'voting_duration'>): number {
  return body.voting_duration ?? DEFAULT_VOTING_DURATION;
}

export function proposalKind(kind: string): ProposalKind {
  return kind === 'PARAM_CHANGE' ? 'PARAM_CHANGE' : 'text';
}

async function isParameter(ctx: ReadContext, key: string): Promise<boolean> {
  try {
    await ctx.params.get(key);
    return true;
  } catch {
    return false;
  }
}

const utf8Length = (v: unknown): number => (typeof v === 'string' ? Buffer.byteLength(v, 'utf8') : 0);

/**
 * The bytes of a proposal's text that its gas prices (`bodyGas`): title, description and the
 * payload's keys and values, in UTF-8. It reads the body as sent, before any check (a proposer
 * may include anything), so a field of another type counts nothing; the rules refuse it anyway.
 */
export function proposalTextBytes(body: Readonly<Record<string, unknown>>): number {
  const payload = body['payload'];
  const entries = payload !== null && typeof payload === 'object' && !Array.isArray(payload) ? Object.entries(payload) : [];
  return utf8Length(body['title']) + utf8Length(body['description']) + entries.reduce((n, [k, v]) => n + utf8Length(k) + utf8Length(v), 0);
}

/** Gas of a proposal's text: 1 per PROPOSAL_BYTES_PER_GAS bytes beyond PROPOSAL_FREE_TEXT_BYTES, rounded up. */
export const proposalTextGas = (body: Readonly<Record<string, unknown>>): number => Math.ceil(Math.max(0, proposalTextBytes(body) - PROPOSAL_FREE_TEXT_BYTES) / PROPOSAL_BYTES_PER_GAS);
