import fc from 'fast-check';
import { rawRequest, requestHead, type RawAnswer } from '../helpers/raw-http.js';
import { requestOf, routeName, type ApiRoute, type FuzzRequest } from './route-cases.js';

/**
 * Sends every route of a process the requests `route-cases.ts` draws, on a bare socket (so that
 * duplicate keys, bad escapes and wrong content types go out as written), and judges each answer
 * by what part 2 "Errors" promises a client: an answer on every connection, never a 5xx but the
 * 503 a route declares (a proven read with no certified header yet, a full mempool), and every
 * refusal a 4xx whose body is the JSON error shape `{error, hint?}`. A route's first broken
 * answer is shrunk by fast-check to the smallest request that still breaks it.
 */

export interface FuzzOptions {
  readonly port: number;
  /** Cases per route. */
  readonly runs: number;
  readonly seed: number;
  /** Routes fuzzed at once (the process answers on both cores while the fuzzer waits). */
  readonly concurrency: number;
  /** Per request, before the connection counts as dropped without an answer. */
  readonly timeoutMs?: number;
  /** fast-check's path of one case: with `seed`, replays that case alone. */
  readonly path?: string;
}

export interface Finding {
  readonly route: string;
  readonly problem: string;
  readonly request: FuzzRequest;
  /** Replays exactly this case: `npm run fuzz -- --seed <seed> --route '<route>' --path <path>`. */
  readonly seed: number;
  readonly path: string | undefined;
}

export interface FuzzReport {
  readonly findings: Finding[];
  requests: number;
  /** Hashes of the transactions the process admitted (a 2xx carrying `tx_hash`): the only ones a block may hold. */
  readonly admitted: Set<string>;
  /** How many answers of each status, for the log. */
  readonly statuses: Map<number, number>;
}

/** Why `answer` breaks the promise for `route`, or undefined. */
export function problemWith(route: ApiRoute, answer: RawAnswer): string | undefined {
  if (answer.outcome !== 'answered') return `the connection was ${answer.outcome} without an answer`;
  const declared503 = answer.status === 503 && route.statuses.has(503);
  if (answer.status >= 500 && !declared503) return `answered ${answer.status}: ${answer.body.slice(0, 300)}`;
  if (answer.status < 400) return undefined;
  if (!/^application\/json/.test(answer.headers['content-type'] ?? '')) return `refusal ${answer.status} is not JSON (content-type ${answer.headers['content-type'] ?? 'none'}): ${answer.body.slice(0, 200)}`;
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    return `refusal ${answer.status} body does not parse as JSON: ${answer.body.slice(0, 200)}`;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return `refusal ${answer.status} body is not an object: ${answer.body.slice(0, 200)}`;
  const o = body as Record<string, unknown>;
  if (typeof o.error !== 'string' || o.error === '') return `refusal ${answer.status} has no error message: ${answer.body.slice(0, 200)}`;
  if (o.hint !== undefined && typeof o.hint !== 'string') return `refusal ${answer.status} has a hint that is not text: ${answer.body.slice(0, 200)}`;
  return undefined;
}

/** The request's bytes: head (Host, Connection: close, Content-Type, Content-Length) and body. */
export function requestBytes(r: FuzzRequest): Buffer {
  const body = r.body === undefined ? Buffer.alloc(0) : Buffer.from(r.body, 'utf8');
  const headers: Record<string, string> = {};
  if (r.contentType !== undefined) headers['Content-Type'] = r.contentType;
  if (r.body !== undefined || ['POST', 'PUT', 'PATCH'].includes(r.method)) headers['Content-Length'] = String(body.byteLength);
  return Buffer.concat([Buffer.from(requestHead(r.method, r.target, headers), 'latin1'), body]);
}

/** Seed of one route's run: the run's seed mixed with the route's name, so one route replays alone. */
export function routeSeed(seed: number, route: ApiRoute): number {
  let h = seed >>> 0;
  for (const c of routeName(route)) h = (Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0);
  return h | 0;
}

export async function fuzzRoutes(routes: readonly ApiRoute[], o: FuzzOptions): Promise<FuzzReport> {
  const report: FuzzReport = { findings: [], requests: 0, admitted: new Set(), statuses: new Map() };
  const queue = [...routes];
  const worker = async (): Promise<void> => {
    for (let route = queue.shift(); route !== undefined; route = queue.shift()) await fuzzRoute(route, o, report);
  };
  await Promise.all(Array.from({ length: Math.max(1, o.concurrency) }, worker));
  return report;
}

async function fuzzRoute(route: ApiRoute, o: FuzzOptions, report: FuzzReport): Promise<void> {
  const seed = routeSeed(o.seed, route);
  let last: { request: FuzzRequest; problem: string } | undefined;
  const property = fc.asyncProperty(requestOf(route), async (request) => {
    const answer = await rawRequest(o.port, requestBytes(request), { timeoutMs: o.timeoutMs ?? 15_000 });
    report.requests++;
    report.statuses.set(answer.status, (report.statuses.get(answer.status) ?? 0) + 1);
    if (answer.status >= 200 && answer.status < 300) noteAdmitted(answer, report.admitted);
    const problem = problemWith(route, answer);
    if (problem !== undefined) last = { request, problem };
    return problem === undefined;
  });
  // Shrinking talks to the live process too: bounded so a finding costs seconds, not the run.
  const details = await fc.check(property, { seed, numRuns: o.runs, interruptAfterTimeLimit: 120_000, ...(o.path !== undefined ? { path: o.path } : {}) });
  if (details.failed && details.counterexample !== null) {
    const [request] = details.counterexample;
    report.findings.push({ route: routeName(route), problem: last?.problem ?? String(details.errorInstance), request, seed: o.seed, path: details.counterexamplePath ?? undefined });
  }
}

function noteAdmitted(answer: RawAnswer, admitted: Set<string>): void {
  try {
    const body = JSON.parse(answer.body) as Record<string, unknown>;
    if (typeof body.tx_hash === 'string') admitted.add(body.tx_hash);
  } catch {
    /* not JSON: admits nothing */
  }
}

/** A finding as the failure message prints it: enough to replay it by hand with curl or the raw client. */
export function describeFinding(f: Finding): string {
  const body = f.request.body === undefined ? '' : ` body ${JSON.stringify(f.request.body.length > 400 ? `${f.request.body.slice(0, 400)}… (${f.request.body.length} chars)` : f.request.body)}`;
  return `${f.route} [${f.request.kind}] ${f.problem}\n  sent: ${f.request.method} ${f.request.target.slice(0, 400)}${f.request.contentType ? ` (${f.request.contentType})` : ''}${body}\n  replay: npm run fuzz -- --seed ${f.seed} --route '${f.route}'${f.path !== undefined ? ` --path ${f.path}` : ''}`;
}
