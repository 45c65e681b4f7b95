import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toHex } from '../../kernel/codec/hex.js';
import { verifyCommit } from '../../kernel/consensus/commit.js';
import { verifyEvidence } from '../../kernel/consensus/evidence.js';
import type { TimeoutConfig } from '../../kernel/consensus/timeouts.js';
import { ValidatorSet } from '../../kernel/consensus/validator-set.js';
import type { KeyPair, SignatureProvider } from '../../kernel/crypto/provider.js';
import { MemoryNetwork, type LinkConditions, type NetworkStats } from '../../kernel/p2p/memory/network.js';
import { Prng } from '../../kernel/p2p/memory/prng.js';
import { Scheduler } from '../../kernel/p2p/memory/scheduler.js';
import { Sha3MacTestProvider } from './sha3-mac-provider.js';
import { SimNode, validatorKeySeed, type Behaviour, type Decision } from './sim-node.js';
import { SetSchedule, type SlashingRule, type StakeChange } from './set-schedule.js';
import type { SimAction } from './sim-app-state.js';

export interface SimConfig {
  readonly seed: number;
  readonly validators: number;
  /** Self-stake per validator index (ucoin); equal stakes when absent. */
  readonly stakes?: readonly bigint[];
  /** Stake changes made by decided blocks (a validator leaving with 0, returning, powers moving). */
  readonly stakeChanges?: readonly StakeChange[];
  /** Double-sign evidence in blocks slashes and jails (set-schedule.ts); no slashing when absent. */
  readonly slashing?: SlashingRule;
  /** Behaviour per validator index; honest when absent. */
  readonly behaviours?: Readonly<Record<number, Behaviour>>;
  /** Every correct node must decide heights 1..targetHeight. */
  readonly targetHeight: number;
  readonly links: LinkConditions;
  /** Link conditions from a virtual time on (e.g. a lossy period that ends). */
  readonly linksLater?: { readonly atMs: number; readonly links: LinkConditions };
  /** Partitions over validator indices. */
  readonly partitions?: readonly { readonly groups: readonly (readonly number[])[]; readonly fromMs: number; readonly untilMs: number }[];
  /**
   * Random two-way splits: from 0 until `untilMs`, every `everyMs` a fresh seeded split of the
   * validators holds for `holdMs`.
   */
  readonly flapping?: { readonly everyMs: number; readonly holdMs: number; readonly untilMs: number };
  readonly timeouts?: Partial<TimeoutConfig>;
  readonly gossipIntervalMs?: number;
  /** Give up after this much virtual time. */
  readonly maxVirtualMs: number;
  readonly provider?: SignatureProvider;
  readonly chainId?: string;
  /** Governance outcomes the proposers of each height put in their block (sim-app-state.ts). */
  readonly governance?: Readonly<Record<number, readonly SimAction[]>>;
}

export interface SimResult {
  readonly config: SimConfig;
  readonly nodes: readonly SimNode[];
  readonly correct: readonly SimNode[];
  readonly validators: ValidatorSet;
  readonly chainId: string;
  readonly provider: SignatureProvider;
  readonly virtualMs: number;
  readonly events: number;
  readonly stats: NetworkStats;
  /** When the network stopped being partitioned or lossy (0 if it never was). */
  readonly stableFromMs: number;
}

const keyCache = new Map<string, KeyPair>();

function keyPairFor(provider: SignatureProvider, index: number): KeyPair {
  const k = `${provider.name}|${index}`;
  let kp = keyCache.get(k);
  if (kp === undefined) {
    kp = provider.keygen(validatorKeySeed(index));
    keyCache.set(k, kp);
  }
  return kp;
}

export function validatorAddress(index: number): string {
  return `chain:v${String(index).padStart(2, '0')}.node`;
}

export async function runSimulation(cfg: SimConfig): Promise<SimResult> {
  const provider = cfg.provider ?? Sha3MacTestProvider;
  const chainId = cfg.chainId ?? 'sim-chain-1';
  const root = new Prng(cfg.seed);
  const scheduler = new Scheduler();
  const network = new MemoryNetwork(scheduler, root.fork(), cfg.links);
  const keys = Array.from({ length: cfg.validators }, (_, i) => keyPairFor(provider, i));
  const validators = new ValidatorSet(
    keys.map((kp, i) => ({ address: validatorAddress(i), public_key: toHex(kp.publicKey), power: cfg.stakes?.[i] ?? 1_000_000n })),
  );
  let stableFromMs = 0;
  for (const p of cfg.partitions ?? []) {
    network.addPartition({ groups: p.groups.map((g) => g.map(validatorAddress)), fromMs: p.fromMs, untilMs: p.untilMs });
    stableFromMs = Math.max(stableFromMs, p.untilMs);
  }
  if (cfg.flapping !== undefined) {
    const fp = root.fork();
    const { everyMs, holdMs, untilMs } = cfg.flapping;
    for (let t = everyMs; t < untilMs; t += everyMs) {
      // Either a random two-way split or one node cut off from all others.
      const lone = fp.chance(500) ? fp.int(cfg.validators) : -1;
      const side = Array.from({ length: cfg.validators }, (_, i) => (lone >= 0 ? i === lone : fp.chance(500)));
      const a = side.flatMap((x, i) => (x ? [validatorAddress(i)] : []));
      const b = side.flatMap((x, i) => (x ? [] : [validatorAddress(i)]));
      network.addPartition({ groups: [a, b], fromMs: t, untilMs: Math.min(t + holdMs, untilMs) });
    }
    stableFromMs = Math.max(stableFromMs, untilMs);
  }
  if (cfg.linksLater !== undefined) {
    const later = cfg.linksLater;
    scheduler.at(later.atMs, () => network.setConditions(later.links));
    stableFromMs = Math.max(stableFromMs, later.atMs);
  }
  const nodes = keys.map(
    (keyPair, i) =>
      new SimNode({
        address: validatorAddress(i),
        keyPair,
        provider,
        chainId,
        schedule: new SetSchedule(validators.validators, cfg.stakeChanges ?? [], cfg.slashing, validatorAddress, chainId, provider),
        transport: network.join(validatorAddress(i)),
        scheduler,
        behaviour: cfg.behaviours?.[i] ?? 'honest',
        seed: cfg.seed,
        prng: root.fork(),
        gossipIntervalMs: cfg.gossipIntervalMs ?? 500,
        ...(cfg.governance !== undefined ? { governance: cfg.governance } : {}),
        ...(cfg.timeouts !== undefined ? { timeouts: cfg.timeouts } : {}),
      }),
  );
  const correct = nodes.filter((n) => n.behaviour === 'honest');
  for (const n of nodes) n.boot();
  await scheduler.run({
    untilMs: cfg.maxVirtualMs,
    stopWhen: () => correct.every((n) => n.height > cfg.targetHeight),
  });
  return { config: cfg, nodes, correct, validators, chainId, provider, virtualMs: scheduler.now, events: scheduler.eventsRun, stats: { ...network.stats }, stableFromMs };
}

/**
 * Safety and validity over the correct nodes: one decided hash per height across all of them,
 * every certificate verifies, every decided block is one the application accepts and extends
 * the previous decision; every piece of evidence verifies and names a faulty validator.
 */
export function safetyViolations(r: SimResult): string[] {
  const problems: string[] = [];
  const byHeight = new Map<number, { hash: string; node: string; root: string }>();
  const faulty = new Set(r.nodes.filter((n) => n.behaviour !== 'honest').map((n) => n.address));
  for (const n of r.correct) {
    let prev = '0x' + '00'.repeat(32);
    for (let h = 1; n.decisions.has(h); h++) {
      const d = n.decisions.get(h) as Decision;
      const seen = byHeight.get(h);
      if (seen === undefined) byHeight.set(h, { hash: d.hash, node: n.address, root: d.stateRoot });
      else if (seen.hash !== d.hash) problems.push(`height ${h}: ${seen.node} decided ${seen.hash}, ${n.address} decided ${d.hash}`);
      else if (seen.root !== d.stateRoot) problems.push(`height ${h}: ${seen.node} holds state root ${seen.root}, ${n.address} ${d.stateRoot}`);
      if (d.block.invalid) problems.push(`height ${h}: ${n.address} decided a block the application rejects`);
      if (d.block.prevHash !== prev) problems.push(`height ${h}: ${n.address} decided a block not extending its chain`);
      prev = d.hash;
      // Against the set of that height as this node derived it from its own decided blocks.
      const ok = verifyCommit(d.certificate, n.schedule.setAt(h), r.chainId, r.provider);
      if (!ok.ok) problems.push(`height ${h}: ${n.address} holds a certificate that does not verify: ${ok.reason}`);
    }
    if (n.decisions.size > 0 && !n.decisions.has(1)) problems.push(`${n.address} decided without height 1`);
    for (const e of n.evidence) {
      const ok = verifyEvidence(e, r.validators, r.chainId, r.provider);
      if (!ok.ok) problems.push(`${n.address} produced evidence that does not verify: ${ok.reason}`);
      if (!faulty.has(e.voteA.vote.validator)) problems.push(`${n.address} accused correct validator ${e.voteA.vote.validator}`);
    }
    for (const err of n.errors) problems.push(`${n.address} logged an error: ${err}`);
  }
  return problems;
}

/** Liveness: every correct node decided `targetHeight`, no later than `boundMs` after the network became stable. */
export function livenessViolations(r: SimResult, boundMs: number): string[] {
  const problems: string[] = [];
  const deadline = r.stableFromMs + boundMs;
  for (const n of r.correct) {
    const d = n.decisions.get(r.config.targetHeight);
    if (d === undefined) problems.push(`${n.address} reached only height ${n.height - 1} of ${r.config.targetHeight} by ${r.virtualMs} ms`);
    else if (d.atMs > deadline) problems.push(`${n.address} decided height ${r.config.targetHeight} at ${d.atMs} ms, after the bound ${deadline} ms`);
  }
  return problems;
}

/** Seeds to run: the defaults, or only SIM_SEED when set (to replay a failure). */
export function seeds(defaults: readonly number[]): number[] {
  const env = process.env['SIM_SEED'];
  if (env === undefined || env === '') return [...defaults];
  const n = Number(env);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`SIM_SEED must be a non-negative integer, got ${env}`);
  return [n];
}

/** The failure text: what broke, and the exact command that replays this run. */
export function report(r: SimResult, testFile: string, testName: string, problems: readonly string[]): string {
  const shown = problems.slice(0, 12).join('\n  ');
  const more = problems.length > 12 ? `\n  ... and ${problems.length - 12} more` : '';
  return (
    `seed ${r.config.seed}: ${problems.length} problem(s)\n  ${shown}${more}\n` +
    `replay: npx tsc -p tsconfig.json; SIM_SEED=${r.config.seed} node --test --test-name-pattern=${JSON.stringify(testName)} dist/test/simulation/${testFile}`
  );
}

export function summary(r: SimResult): string {
  const heights = Math.min(...r.correct.map((n) => n.height - 1));
  let maxRound = 0;
  for (const n of r.correct) for (const d of n.decisions.values()) maxRound = Math.max(maxRound, d.round);
  const evidence = r.correct.reduce((sum, n) => sum + n.evidence.length, 0);
  return (
    `seed=${r.config.seed} n=${r.config.validators} heights=${heights} virtual=${r.virtualMs}ms maxRound=${maxRound} evidence=${evidence} ` +
    `events=${r.events} sent=${r.stats.sent} dropped=${r.stats.dropped} dup=${r.stats.duplicated} partitioned=${r.stats.partitioned}`
  );
}

export interface ScenarioOptions {
  /** Test file name under dist/test/simulation/, for the replay command. */
  readonly file: string;
  readonly name: string;
  readonly seeds: readonly number[];
  /** Virtual time allowed after the network became stable for every correct node to reach the target. */
  readonly livenessBoundMs: number;
  readonly config: Omit<SimConfig, 'seed' | 'maxVirtualMs'>;
  /** Extra checks on the result (e.g. evidence was found); return problems. */
  readonly extraChecks?: (r: SimResult) => string[];
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Runs one scenario for one seed and returns the problems found (safety, liveness, extra), each
 * failure message carrying the seed and the command that replays exactly this run.
 */
export async function runScenario(o: ScenarioOptions, seed: number): Promise<{ result: SimResult; failure: string | undefined }> {
  const stable = Math.max(0, ...(o.config.partitions ?? []).map((p) => p.untilMs), o.config.linksLater?.atMs ?? 0, o.config.flapping?.untilMs ?? 0);
  const result = await runSimulation({ ...o.config, seed, maxVirtualMs: stable + o.livenessBoundMs });
  const problems = [...safetyViolations(result), ...livenessViolations(result, o.livenessBoundMs), ...(o.extraChecks?.(result) ?? [])];
  const failure = problems.length === 0 ? undefined : report(result, o.file, escapeRegExp(o.name), problems);
  return { result, failure };
}

/** Total heights decided by the slowest correct node (what the suite counts as simulated heights). */
export function heightsOf(r: SimResult): number {
  return Math.min(...r.correct.map((n) => n.height - 1));
}

/** Registers one node:test test per seed (only SIM_SEED's when set). */
export function defineScenario(o: ScenarioOptions): void {
  for (const seed of seeds(o.seeds)) {
    test(`${o.name} [seed ${seed}]`, async (t) => {
      const { result, failure } = await runScenario(o, seed);
      t.diagnostic(summary(result));
      if (failure !== undefined) assert.fail(failure);
    });
  }
}
