// Fungible token contract (part 1, Contract execution 10), AssemblyScript, compiled by
// `npm run build` with --runtime stub (one instance per call: nothing needs freeing).
// Amounts are u64 in the smallest unit, read from JSON numbers or digit strings.

@external("env", "get_caller") declare function get_caller(ptr: usize, cap: i32): i32;
@external("env", "storage_read") declare function storage_read(kp: usize, kl: i32, op: usize, cap: i32): i32;
@external("env", "storage_write") declare function storage_write(kp: usize, kl: i32, vp: usize, vl: i32): void;
@external("env", "set_return") declare function set_return(ptr: usize, len: i32): void;
@external("env", "emit_event") declare function emit_event(np: usize, nl: i32, dp: usize, dl: i32): void;

export function alloc(len: i32): usize {
  return heap.alloc(<usize>len);
}

function bytesOf(s: string): ArrayBuffer {
  return String.UTF8.encode(s);
}

function caller(): string {
  const buf = new ArrayBuffer(128);
  const n = get_caller(changetype<usize>(buf), 128);
  if (n > 128) {
    const big = new ArrayBuffer(n);
    get_caller(changetype<usize>(big), n);
    return String.UTF8.decode(big);
  }
  return String.UTF8.decodeUnsafe(changetype<usize>(buf), <usize>n);
}

function get(key: string): string | null {
  const k = bytesOf(key);
  let buf = new ArrayBuffer(256);
  let n = storage_read(changetype<usize>(k), k.byteLength, changetype<usize>(buf), 256);
  if (n < 0) return null;
  if (n > 256) {
    buf = new ArrayBuffer(n);
    n = storage_read(changetype<usize>(k), k.byteLength, changetype<usize>(buf), n);
  }
  return String.UTF8.decodeUnsafe(changetype<usize>(buf), <usize>n);
}

function put(key: string, value: string): void {
  const k = bytesOf(key);
  const v = bytesOf(value);
  storage_write(changetype<usize>(k), k.byteLength, changetype<usize>(v), v.byteLength);
}

function ret(json: string): void {
  const b = bytesOf(json);
  set_return(changetype<usize>(b), b.byteLength);
}

function quote(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c == 34) out += '\\"';
    else if (c == 92) out += '\\\\';
    else if (c < 32) out += ' ';
    else out += String.fromCharCode(c);
  }
  return out + '"';
}

function ok(valueJson: string): void {
  ret('{"ok":' + valueJson + '}');
}

function err(text: string): void {
  ret('{"error":' + quote(text) + '}');
}

function event(name: string, data: string): void {
  const n = bytesOf(name);
  const d = bytesOf(data);
  emit_event(changetype<usize>(n), n.byteLength, changetype<usize>(d), d.byteLength);
}

// --- a small reader of the top-level keys of a JSON object (strings, numbers, literals; nested values skipped)

class Reader {
  pos: i32 = 0;
  constructor(public s: string) {}
  ws(): void {
    while (this.pos < this.s.length) {
      const c = this.s.charCodeAt(this.pos);
      if (c == 32 || c == 9 || c == 10 || c == 13) this.pos++;
      else break;
    }
  }
  peek(): i32 {
    return this.pos < this.s.length ? this.s.charCodeAt(this.pos) : -1;
  }
  str(): string {
    this.pos++; // opening quote
    let out = '';
    while (this.pos < this.s.length) {
      const c = this.s.charCodeAt(this.pos++);
      if (c == 34) return out;
      if (c == 92) {
        const e = this.s.charCodeAt(this.pos++);
        if (e == 110) out += '\n';
        else if (e == 116) out += '\t';
        else if (e == 117) {
          let code = 0;
          for (let k = 0; k < 4 && this.pos < this.s.length; k++) {
            const h = this.s.charCodeAt(this.pos++);
            code = code * 16 + (h >= 97 ? h - 87 : h >= 65 ? h - 55 : h - 48);
          }
          out += String.fromCharCode(code);
        } else out += String.fromCharCode(e);
      } else out += String.fromCharCode(c);
    }
    return out;
  }
  // Any value as raw text (strings unquoted); nested objects and arrays skipped whole.
  value(): string {
    this.ws();
    const c = this.peek();
    if (c == 34) return this.str();
    if (c == 123 || c == 91) {
      let depth = 0;
      const start = this.pos;
      while (this.pos < this.s.length) {
        const d = this.peek();
        if (d == 34) {
          this.str();
          continue;
        }
        if (d == 123 || d == 91) depth++;
        if (d == 125 || d == 93) depth--;
        this.pos++;
        if (depth == 0) break;
      }
      return this.s.substring(start, this.pos);
    }
    const start = this.pos;
    while (this.pos < this.s.length) {
      const d = this.peek();
      if (d == 44 || d == 125 || d == 32 || d == 10 || d == 13 || d == 9) break;
      this.pos++;
    }
    return this.s.substring(start, this.pos);
  }
}

function parseTop(s: string): Map<string, string> {
  const m = new Map<string, string>();
  const r = new Reader(s);
  r.ws();
  if (r.peek() != 123) return m;
  r.pos++;
  for (;;) {
    r.ws();
    const c = r.peek();
    if (c == 125 || c < 0) break;
    if (c == 44) {
      r.pos++;
      continue;
    }
    if (c != 34) break;
    const key = r.str();
    r.ws();
    if (r.peek() != 58) break;
    r.pos++;
    m.set(key, r.value());
  }
  return m;
}

// --- amounts

const INVALID: u64 = u64.MAX_VALUE;

function parseAmount(s: string): u64 {
  if (s.length == 0 || s.length > 20) return INVALID;
  let v: u64 = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return INVALID;
    const next = v * 10 + <u64>(c - 48);
    if (next / 10 != v) return INVALID;
    v = next;
  }
  return v;
}

function amountStr(v: u64): string {
  return v.toString();
}

function balanceOf(a: string): u64 {
  const v = get('b:' + a);
  return v === null ? 0 : parseAmount(v);
}

function setBalance(a: string, v: u64): void {
  put('b:' + a, amountStr(v));
}

function allowanceOf(o: string, s: string): u64 {
  const v = get('a:' + o + ':' + s);
  return v === null ? 0 : parseAmount(v);
}

function transferEvent(from: string | null, to: string | null, amount: u64): void {
  const f = from === null ? 'null' : quote(from);
  const t = to === null ? 'null' : quote(to);
  event('Transfer', '{"from":' + f + ',"to":' + t + ',"amount":"' + amountStr(amount) + '"}');
}

function move(from: string, to: string, amount: u64): bool {
  const fb = balanceOf(from);
  if (fb < amount) {
    err('insufficient balance: ' + from + ' has ' + amountStr(fb));
    return false;
  }
  setBalance(from, fb - amount);
  const tb = balanceOf(to);
  if (tb + amount < tb) {
    err('balance overflow');
    return false;
  }
  setBalance(to, tb + amount);
  transferEvent(from, to, amount);
  return true;
}

function arg(m: Map<string, string>, k: string): string {
  return m.has(k) ? m.get(k) : '';
}

export function call(ptr: usize, len: i32): void {
  const input = String.UTF8.decodeUnsafe(ptr, <usize>len);
  const m = parseTop(input);
  const fn = m.has('function') ? m.get('function') : arg(m, 'method');
  const who = caller();

  if (fn == 'initialize') {
    if (get('owner') !== null) return err('already initialized');
    const supply = parseAmount(arg(m, 'total_supply'));
    if (supply == INVALID) return err('total_supply must be a whole amount');
    const dec = parseAmount(arg(m, 'decimals'));
    put('name', arg(m, 'name'));
    put('symbol', arg(m, 'symbol'));
    put('decimals', dec == INVALID ? '0' : amountStr(dec));
    put('owner', who);
    put('supply', amountStr(supply));
    setBalance(who, supply);
    transferEvent(null, who, supply);
    return ok('true');
  }
  if (get('owner') === null) return err('not initialized');
  if (fn == 'name') return ok(quote(get('name')!));
  if (fn == 'symbol') return ok(quote(get('symbol')!));
  if (fn == 'decimals') return ok(get('decimals')!);
  if (fn == 'total_supply' || fn == 'totalSupply') return ok(quote(get('supply')!));
  if (fn == 'owner') return ok(quote(get('owner')!));
  if (fn == 'balance_of' || fn == 'balanceOf') {
    const a = m.has('address') ? m.get('address') : arg(m, 'account');
    return ok(quote(amountStr(balanceOf(a))));
  }
  if (fn == 'allowance') return ok(quote(amountStr(allowanceOf(arg(m, 'owner'), arg(m, 'spender')))));

  const amount = parseAmount(arg(m, 'amount'));
  if (amount == INVALID) return err('amount must be a whole amount in the smallest unit');
  if (fn == 'transfer') {
    const to = arg(m, 'to');
    if (to.length == 0) return err('to is required');
    if (move(who, to, amount)) ok('true');
    return;
  }
  if (fn == 'approve') {
    const spender = arg(m, 'spender');
    if (spender.length == 0) return err('spender is required');
    put('a:' + who + ':' + spender, amountStr(amount));
    event('Approval', '{"owner":' + quote(who) + ',"spender":' + quote(spender) + ',"amount":"' + amountStr(amount) + '"}');
    return ok('true');
  }
  if (fn == 'transfer_from' || fn == 'transferFrom') {
    const from = arg(m, 'from');
    const to = arg(m, 'to');
    if (from.length == 0 || to.length == 0) return err('from and to are required');
    const allowed = allowanceOf(from, who);
    if (allowed < amount) return err('allowance of ' + who + ' from ' + from + ' is ' + amountStr(allowed));
    if (!move(from, to, amount)) return;
    put('a:' + from + ':' + who, amountStr(allowed - amount));
    return ok('true');
  }
  if (fn == 'mint') {
    if (who != get('owner')!) return err('only the owner may mint');
    const to = arg(m, 'to');
    if (to.length == 0) return err('to is required');
    const supply = parseAmount(get('supply')!);
    if (supply + amount < supply) return err('supply overflow');
    put('supply', amountStr(supply + amount));
    setBalance(to, balanceOf(to) + amount);
    transferEvent(null, to, amount);
    return ok('true');
  }
  if (fn == 'burn') {
    const b = balanceOf(who);
    if (b < amount) return err('insufficient balance to burn');
    setBalance(who, b - amount);
    put('supply', amountStr(parseAmount(get('supply')!) - amount));
    transferEvent(who, null, amount);
    return ok('true');
  }
  err('unknown function ' + fn);
}
