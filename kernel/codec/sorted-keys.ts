/**
 * An object's own enumerable keys in the order `Array.prototype.sort()` gives (UTF-16 code
 * units). V8's sort allocates about 900 bytes even for three keys, and canonical encoding and
 * state records sort several objects per transaction on every validator. Keys are usually in
 * order already (bodies and records built sorted, canonical texts parsed); a few out of order are
 * put in place by insertion, which allocates nothing and, keys being distinct, gives the same
 * order as sort().
 */
export function sortedKeys(o: object): string[] {
  const keys = Object.keys(o);
  if (keys.length > INSERTION_SORT_MAX) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const k = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > k) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = k;
  }
  return keys;
}

/** Above this many keys sort() is used: insertion is quadratic. */
const INSERTION_SORT_MAX = 32;
