/**
 * Nesting depth of a transaction's JSON, measured without recursion. The canonical encoder, the
 * canonical-text matcher and schema checks recurse over a body; a body nested near V8's stack
 * limit could then hash on one node and overflow the stack on another. Every transaction text
 * that enters the node (admission, a peer's relay, a block's transactions) is refused beyond
 * MAX_TX_NESTING levels before anything recursive touches it (docs/threats.md).
 */
export const MAX_TX_NESTING = 64;

/** The deepest nesting of arrays and objects in a JSON text (0 for a scalar); brackets inside strings are skipped. */
export function jsonTextDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) max = depth;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

/**
 * The deepest nesting of arrays and plain objects in a parsed value (0 for a scalar), walked with
 * an explicit stack. Stops early once `limit` is exceeded, so a huge body costs no more than it must.
 */
export function valueDepth(value: unknown, limit = Number.MAX_SAFE_INTEGER): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object' || v instanceof Uint8Array) continue;
    const depth = d + 1;
    if (depth > max) {
      max = depth;
      if (max > limit) return max;
    }
    const children = Array.isArray(v) ? v : Object.values(v as Record<string, unknown>);
    for (const c of children) if (c !== null && typeof c === 'object') stack.push([c, depth]);
  }
  return max;
}

/** Why a transaction (its text when there is one, else its parsed body) is nested too deeply, or undefined. */
export function nestingProblem(text: string | undefined, body: unknown): string | undefined {
  const depth = text !== undefined ? jsonTextDepth(text) : valueDepth(body, MAX_TX_NESTING);
  return depth > MAX_TX_NESTING ? `transaction nesting depth exceeds the limit of ${MAX_TX_NESTING} levels of arrays and objects` : undefined;
}
