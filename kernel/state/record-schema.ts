import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { jsonRecord, bigintCodec, type RecordCodec } from './record-codec.js';

/**
 * How a declared store writes its values. `record` (the default) is the kernel's canonical JSON
 * for state (`jsonRecord`: sorted keys, bigints as `{"$big":"<digits>"}`), the bytes every plugin
 * wrote before stores were declared; `decimal` is a bigint as its decimal text (`bigintCodec`);
 * `bytes` stores a `Uint8Array` as it is (code, a contract's storage).
 */
export type ValueEncoding = 'record' | 'decimal' | 'bytes';

/**
 * A declared value: its schema compiled once, checked on every write and every read, and
 * encoded as its encoding says. A value that fails the check throws naming the store, the key
 * and the first field, on every node alike: a plugin cannot write a record its declaration does
 * not describe, nor read one back unnoticed.
 */
export class RecordSchema<V extends TSchema> {
  private readonly check: TypeCheck<V>;
  private readonly codec: RecordCodec<Static<V>>;

  constructor(
    private readonly owner: string,
    readonly schema: V,
    readonly encoding: ValueEncoding,
  ) {
    this.check = TypeCompiler.Compile(schema);
    this.codec = codecOf<Static<V>>(encoding, schema, owner);
  }

  encode(value: Static<V>, key: string): Uint8Array {
    if (!this.check.Check(value)) throw new Error(`${this.owner}: the value written at ${key} does not match its schema: ${this.firstProblem(value)}`);
    return this.codec.encode(value);
  }

  decode(bytes: Uint8Array, key: string): Static<V> {
    let value: Static<V>;
    try {
      value = this.codec.decode(bytes);
    } catch (e) {
      throw new Error(`${this.owner}: the bytes at ${key} are not ${this.encoding === 'record' ? 'a record' : `a ${this.encoding} value`} (${e instanceof Error ? e.message : String(e)})`);
    }
    if (!this.check.Check(value)) throw new Error(`${this.owner}: the record at ${key} does not match its schema: ${this.firstProblem(value)}`);
    return value;
  }

  /** Whether a value matches the schema (an event's data, before it is emitted). */
  matches(value: unknown): value is Static<V> {
    return this.check.Check(value);
  }

  /** The first field a value gets wrong, as `<path>: <message>` (`text: Expected string`). */
  firstProblem(value: unknown): string {
    const first = this.check.Errors(value).First();
    if (!first) return 'no error';
    const path = first.path.replace(/^\//, '').replace(/\//g, '.');
    return `${path === '' ? '(the value)' : path}: ${first.message}`;
  }
}

function codecOf<T>(encoding: ValueEncoding, schema: TSchema, owner: string): RecordCodec<T> {
  switch (encoding) {
    case 'record':
      return jsonRecord<T>();
    case 'decimal':
      if (schema.type !== 'bigint') throw new Error(`${owner}: a decimal value is a bigint (Type.BigInt())`);
      return {
        encode: (v) => bigintCodec.encode(v as bigint),
        decode: (b) => {
          const text = new TextDecoder().decode(b);
          if (!/^-?[0-9]+$/.test(text)) throw new Error(`"${text.slice(0, 32)}" is not a decimal integer`);
          return BigInt(text) as T;
        },
      };
    case 'bytes':
      if (schema.type !== 'Uint8Array') throw new Error(`${owner}: a bytes value is a Uint8Array (Type.Uint8Array())`);
      return { encode: (v) => v as Uint8Array, decode: (b) => b as T };
  }
}
