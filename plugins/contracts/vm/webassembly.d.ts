/**
 * The part of the WebAssembly JS API the contract VM uses. Node 20 has it as a global, but
 * neither lib ES2022 nor @types/node 20 declares it (that lives in lib.dom).
 */
declare namespace WebAssembly {
  class Module {
    constructor(bytes: Uint8Array);
    static imports(module: Module): Array<{ module: string; name: string; kind: string }>;
    static exports(module: Module): Array<{ name: string; kind: string }>;
  }
  type ImportValue = Global | Memory | ((...args: never[]) => unknown);
  type Imports = Record<string, Record<string, ImportValue>>;
  class Instance {
    constructor(module: Module, imports?: Imports);
    readonly exports: Record<string, unknown>;
  }
  class Memory {
    constructor(descriptor: { initial: number; maximum?: number });
    readonly buffer: ArrayBuffer;
    grow(delta: number): number;
  }
  class Global {
    constructor(descriptor: { value: 'i32' | 'i64'; mutable?: boolean }, value?: number | bigint);
    value: number | bigint;
  }
  /** V8's own parse and validation, without compiling. */
  function validate(bytes: Uint8Array): boolean;
  class RuntimeError extends Error {}
  class CompileError extends Error {}
  class LinkError extends Error {}
}
