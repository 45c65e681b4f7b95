/**
 * The first key that appears twice in one object of a JSON text, or undefined. JSON.parse keeps
 * the last of two equal keys without a word, so a call whose data names an argument twice would
 * reach the contract with one of them chosen silently (part 1, Contract execution 3: argument
 * names are unique). Walks the text without recursion, so nesting depth costs no stack; keys are
 * compared decoded (`"a"` and `"\u0061"` are one key). The text is assumed to be valid JSON
 * (callers parse it too); on anything else the answer is undefined.
 */
export function duplicateJsonKey(text: string): string | undefined {
  // One entry per open container: the keys seen so far for an object, null for an array.
  const open: Array<Set<string> | null> = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '{') {
      open.push(new Set());
      expectKey = true;
    } else if (ch === '[') {
      open.push(null);
      expectKey = false;
    } else if (ch === '}' || ch === ']') {
      open.pop();
      expectKey = false;
    } else if (ch === ',') {
      expectKey = open[open.length - 1] !== null && open.length > 0;
    } else if (ch === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const top = open[open.length - 1];
      if (expectKey && top) {
        let key: string;
        try {
          key = JSON.parse(text.slice(i, j + 1)) as string;
        } catch {
          return undefined;
        }
        if (top.has(key)) return key;
        top.add(key);
        expectKey = false;
      }
      i = j;
    }
  }
  return undefined;
}
