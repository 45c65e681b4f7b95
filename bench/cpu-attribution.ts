/**
 * Splits a V8 CPU profile (the inspector's `Profiler.stop` answer) by who the time was spent for:
 * each sample goes to the innermost plugin on its stack (a frame whose script lies under
 * `plugins/<name>/`), so a plugin's own code and whatever kernel code it calls (state reads,
 * encoders, the SDK) count as that plugin's; a sample with no plugin frame but a hook-dispatch
 * frame (tapable's generated callers, the host's tap wrapper and context scoping) counts as hook
 * dispatch, the toll every tap pays before its plugin's code runs; one under a signature
 * provider's verify counts as signature verify; the rest is the kernel's, with V8's own
 * pseudo-frames (GC, idle, program) kept apart.
 */
export interface CpuProfile {
  readonly nodes: ReadonlyArray<{ readonly id: number; readonly callFrame: { readonly url: string; readonly functionName: string }; readonly children?: readonly number[] }>;
  readonly samples?: readonly number[];
  readonly timeDeltas?: readonly number[];
}

export const HOOK_DISPATCH = 'hook dispatch';
export const KERNEL = 'kernel';
export const VERIFY = 'signature verify';

const PLUGIN_URL = /\/plugins\/([a-z0-9-]+)\//;
const DISPATCH_URL = /\/node_modules\/tapable\/|\/kernel\/host\/(host|scoping)\.js$/;
const VERIFY_URL = /\/kernel\/crypto\/providers\/|\/kernel\/crypto\/noble-provider\.js$|\/node_modules\/@noble\/post-quantum\//;

/** Which bucket one call frame alone names: a plugin, hook dispatch, signature verify, a V8 pseudo-frame, or undefined (ordinary kernel code). */
function frameBucket(frame: { url: string; functionName: string }): { plugin?: string; dispatch?: true; verify?: true; pseudo?: string } | undefined {
  const plugin = PLUGIN_URL.exec(frame.url)?.[1];
  if (plugin !== undefined) return { plugin };
  if (VERIFY_URL.test(frame.url)) return { verify: true };
  // tapable compiles each hook's caller with `new Function`: no script, named `anonymous`.
  if (DISPATCH_URL.test(frame.url) || (frame.url === '' && frame.functionName === 'anonymous')) return { dispatch: true };
  if (frame.url === '' && /^\(.*\)$/.test(frame.functionName) && frame.functionName !== '(root)') return { pseudo: frame.functionName };
  return undefined;
}

/** Microseconds of the profile per bucket (plugin names, `hook dispatch`, `signature verify`, `kernel`, and V8's `(garbage collector)`, `(idle)`, `(program)`). */
export function attributeCpu(profile: CpuProfile): Map<string, number> {
  const parent = new Map<number, number>();
  const byId = new Map<number, CpuProfile['nodes'][number]>();
  for (const n of profile.nodes) {
    byId.set(n.id, n);
    for (const c of n.children ?? []) parent.set(c, n.id);
  }
  const bucketOf = new Map<number, string>();
  const resolve = (id: number): string => {
    const known = bucketOf.get(id);
    if (known !== undefined) return known;
    let dispatch = false;
    let verify = false;
    let bucket: string | undefined;
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const b = frameBucket(byId.get(at)!.callFrame);
      if (b?.plugin !== undefined) {
        bucket = b.plugin;
        break;
      }
      if (b?.pseudo !== undefined && at === id) {
        bucket = b.pseudo;
        break;
      }
      if (b?.dispatch) dispatch = true;
      if (b?.verify) verify = true;
    }
    const out = bucket ?? (verify ? VERIFY : dispatch ? HOOK_DISPATCH : KERNEL);
    bucketOf.set(id, out);
    return out;
  };
  const totals = new Map<string, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    // A sample's delta is the time since the previous one: the interval it stands for.
    const b = resolve(samples[i]!);
    totals.set(b, (totals.get(b) ?? 0) + (deltas[i] ?? 0));
  }
  return totals;
}

/** A sampled heap profile's node (`HeapProfiler.stopSampling`): bytes allocated by this frame, under its callers. */
export interface HeapProfileNode {
  /** `lineNumber`: 0-based, the function's first line (V8 gives no line per allocation). */
  readonly callFrame: { readonly url: string; readonly functionName: string; readonly lineNumber?: number };
  readonly selfSize: number;
  readonly children: readonly HeapProfileNode[];
}

/** Bytes allocated per bucket, by the same rule as `attributeCpu` (innermost plugin on the stack, then signature verify, hook dispatch, kernel). */
export function attributeAllocation(head: HeapProfileNode): Map<string, number> {
  const totals = new Map<string, number>();
  const walk = (n: HeapProfileNode, inherited: string | undefined, dispatch: boolean, verify: boolean): void => {
    const b = frameBucket(n.callFrame);
    // Walking down from the root, a plugin frame below another plugin's replaces it: the innermost wins.
    const plugin = b?.plugin ?? inherited;
    const underDispatch = dispatch || b?.dispatch === true;
    const underVerify = verify || b?.verify === true;
    const bucket = plugin ?? (b?.pseudo ?? (underVerify ? VERIFY : underDispatch ? HOOK_DISPATCH : KERNEL));
    if (n.selfSize > 0) totals.set(bucket, (totals.get(bucket) ?? 0) + n.selfSize);
    for (const c of n.children) walk(c, plugin, underDispatch, underVerify);
  };
  walk(head, undefined, false, false);
  return totals;
}

/**
 * Bytes allocated with a frame of `matches` on the stack, in all and by site: the innermost such
 * frame (`function (file:line)`, the function's first line), followed by `→ callee` when the
 * allocating frame is outside the module (a builtin such as `subarray`, a library). What one
 * module costs, its callees' allocations charged to the call that made them.
 */
export function allocationUnder(head: HeapProfileNode, matches: (url: string) => boolean): { readonly total: number; readonly bySite: ReadonlyMap<string, number> } {
  const bySite = new Map<string, number>();
  let total = 0;
  const walk = (n: HeapProfileNode, site: string | undefined): void => {
    const frame = n.callFrame;
    const inModule = matches(frame.url);
    const here = inModule ? `${frame.functionName || '(anonymous)'} (${frame.url.split('/').pop()}:${(frame.lineNumber ?? -1) + 1})` : site;
    if (here !== undefined && n.selfSize > 0) {
      total += n.selfSize;
      const key = inModule ? here : `${here} → ${frame.functionName || '(anonymous)'}`;
      bySite.set(key, (bySite.get(key) ?? 0) + n.selfSize);
    }
    for (const c of n.children) walk(c, here);
  };
  walk(head, undefined);
  return { total, bySite };
}
