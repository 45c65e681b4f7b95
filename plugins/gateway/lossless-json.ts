/**
 * JSON.parse that keeps integers beyond 2^53 exact (as bigint), so a node's amounts pass through
 * the gateway unchanged: the codec's stringify writes a bigint back as a plain JSON integer.
 * JSON.parse is used whenever the text has no digit run long enough to be unsafe, which is
 * nearly always, so the slower parser below only runs when it matters.
 */
export function parseJsonLossless(text: string): unknown {
  if (!/\d{16,}/.test(text)) return JSON.parse(text) as unknown;
  const p = new Parser(text);
  p.ws();
  const v = p.value();
  p.ws();
  if (p.i !== text.length) p.fail('unexpected trailing characters');
  return v;
}

// Sticky (y) so each match starts exactly at the cursor without copying the rest of the text.
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;

class Parser {
  i = 0;
  constructor(private readonly s: string) {}

  fail(why: string): never {
    throw new SyntaxError(`${why} at position ${this.i} in JSON`);
  }

  ws(): void {
    while (this.i < this.s.length && ' \t\n\r'.includes(this.s[this.i]!)) this.i++;
  }

  value(): unknown {
    const c = this.s[this.i];
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return this.string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
    for (const [word, v] of [['true', true], ['false', false], ['null', null]] as const) {
      if (this.s.startsWith(word, this.i)) {
        this.i += word.length;
        return v;
      }
    }
    return this.fail('unexpected token');
  }

  private object(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.i++;
    this.ws();
    if (this.s[this.i] === '}') {
      this.i++;
      return out;
    }
    for (;;) {
      this.ws();
      if (this.s[this.i] !== '"') this.fail('expected a property name');
      const key = this.string();
      this.ws();
      if (this.s[this.i++] !== ':') this.fail('expected ":"');
      this.ws();
      // defineProperty, not assignment: a "__proto__" key must stay a plain property.
      Object.defineProperty(out, key, { value: this.value(), enumerable: true, writable: true, configurable: true });
      this.ws();
      const c = this.s[this.i++];
      if (c === '}') return out;
      if (c !== ',') this.fail('expected "," or "}"');
    }
  }

  private array(): unknown[] {
    const out: unknown[] = [];
    this.i++;
    this.ws();
    if (this.s[this.i] === ']') {
      this.i++;
      return out;
    }
    for (;;) {
      this.ws();
      out.push(this.value());
      this.ws();
      const c = this.s[this.i++];
      if (c === ']') return out;
      if (c !== ',') this.fail('expected "," or "]"');
    }
  }

  private string(): string {
    STRING.lastIndex = this.i;
    const m = STRING.exec(this.s);
    if (!m) return this.fail('invalid string');
    this.i += m[0].length;
    return JSON.parse(m[0]) as string;
  }

  private number(): number | bigint {
    NUMBER.lastIndex = this.i;
    const m = NUMBER.exec(this.s);
    if (!m) return this.fail('invalid number');
    this.i += m[0].length;
    const n = Number(m[0]);
    if (m[1] === undefined && m[2] === undefined && !Number.isSafeInteger(n)) return BigInt(m[0]);
    return n;
  }
}
