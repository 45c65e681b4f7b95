/** Reads of the gateway's REST API, from the page's own origin only (decisions.md §88). */

export class ApiError extends Error {
  constructor(
    readonly path: string,
    readonly status: number,
    message: string,
  ) {
    super(`${path}: ${status} ${message}`);
  }
}

export type Json = Record<string, unknown>;

export async function getJson(path: string): Promise<Json> {
  const res = await fetch(path, { headers: { accept: 'application/json' } });
  const body = (await res.json().catch(() => ({}))) as Json;
  if (!res.ok) throw new ApiError(path, res.status, typeof body['error'] === 'string' ? body['error'] : res.statusText);
  return body;
}

/** The status alone: 200 or the error's. */
export async function exists(path: string): Promise<boolean> {
  try {
    await getJson(path);
    return true;
  } catch {
    return false;
  }
}

export const enc = encodeURIComponent;

export function listOf(body: Json, key: string): Json[] {
  const v = body[key];
  return Array.isArray(v) ? (v.filter((x) => typeof x === 'object' && x !== null) as Json[]) : [];
}
