import { setFlagsFromString } from 'node:v8';

let pinned = false;

/**
 * Compiles contracts (and everything else WebAssembly in this process) with V8's baseline
 * compiler, Liftoff, only. Why: time per fuel unit must be the same for a contract's first call
 * and its thousandth, and compiling must take time linear in the code. With V8's default tiering
 * a function runs in Liftoff (with budget checks) until a background thread has optimised it with
 * TurboFan, and each new instance starts that budget again: the calibration measured classes
 * 2–10× apart between runs on a loaded machine, and TurboFan's compile time grows faster than
 * linearly with a function's size (a "JIT bomb", which is why CosmWasm runs Wasmer's single-pass
 * compiler). Liftoff's code is 1.5–2× slower than TurboFan's on integer loops, and predictable.
 * Idempotent; V8 reads the flags when it compiles a module, so this runs before any contract is
 * compiled (the Vm's constructor).
 */
export function pinBaselineTier(): void {
  if (pinned) return;
  pinned = true;
  setFlagsFromString('--liftoff-only');
  setFlagsFromString('--no-wasm-dynamic-tiering');
}
