import { parseArgs } from 'node:util';
import { Cluster } from '../test/helpers/cluster.js';
import { getJson, until } from '../test/helpers/node-process.js';
import { genesisRangeAddress } from '../kernel/chain/genesis-accounts.js';
import { parsePositiveInt } from './load-plan.js';
import { genesisSpread, LOAD_RANGE_SEED, senderWallets, withGenesisAccounts } from './genesis-load.js';
import { peakRssBytes } from './thread-cpu.js';
import { selectProvider } from '../kernel/crypto/select-provider.js';

/**
 * Start and catch-up of a devnet whose genesis holds N funded accounts (issue 40): how long the
 * validators take to write that genesis and commit block 1, and their peak RSS; a validator
 * killed with SIGKILL and restarted, timed until it votes again (another validator is paused at
 * the same moment, so the next block needs its precommit: 3 of 4 equal validators); a fresh node
 * started from validator 1's signed snapshot, timed until it serves an account read, with its
 * peak RSS (the download streams: bounded memory) and the snapshot's size. Figures only; the
 * thresholds the issue names are printed beside them, never asserted.
 *
 *   node dist/bench/scale.bench.js --genesis-accounts 1000000
 */
const USAGE = `usage: node dist/bench/scale.bench.js [--genesis-accounts N] [--validators N] [--block-ms N]
  --genesis-accounts N  accounts funded in the genesis (default 1000000)
  --validators N        validator processes (default 4)
  --block-ms N          the devnet's CHAIN_BLOCK_MS (default 200)`;

const { values } = parseArgs({ options: { 'genesis-accounts': { type: 'string', default: '1000000' }, validators: { type: 'string', default: '4' }, 'block-ms': { type: 'string', default: '200' }, help: { type: 'boolean', short: 'h' } } });
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const n = parsePositiveInt(values['genesis-accounts']!, '--genesis-accounts');
const validators = parsePositiveInt(values.validators!, '--validators');
const blockMs = parsePositiveInt(values['block-ms']!, '--block-ms');
if (validators < 4) throw new Error('--validators: at least 4, so one can be down and another paused while the rest still need the restarted one');

const mib = (bytes: number | null): string => (bytes === null ? 'n/a' : (bytes / 2 ** 20).toFixed(0));
const seconds = (ms: number): string => (ms / 1000).toFixed(1);
const rssOf = (c: Cluster, i: number): number | null => {
  const pid = c.nodes[i]!.proc?.pid;
  return pid ? peakRssBytes(pid) : null;
};

// One keyed account beside the range: nothing is sent here, but the genesis has the load bench's shape.
const spread = genesisSpread(n, 1);
const senders = senderWallets(spread, (seed) => selectProvider('auto').provider.keygen(seed)).map((w) => w.address);
const t0 = performance.now();
const c = await Cluster.start(validators, { CHAIN_BLOCK_MS: String(blockMs), CHAIN_EMPTY_BLOCK_MS: '500', CHAIN_RPC_RATE_LIMIT: '0' }, { editGenesis: (doc) => withGenesisAccounts(doc, spread, senders) });
try {
  const listening = performance.now() - t0;
  await c.waitHeight(0, 1, 600_000);
  const genesisMs = performance.now() - t0;
  console.log(`genesis of ${n} accounts: validators listening ${seconds(listening)} s and block 1 committed ${seconds(genesisMs)} s after start (${validators} validators writing it at once on this machine); peak RSS per validator (MiB): ${c.nodes.map((_, i) => mib(rssOf(c, i))).join(', ')}`);
  const probe = genesisRangeAddress(LOAD_RANGE_SEED, spread.ranged - 1);
  const probeBalance = async (url: string): Promise<unknown> => (await getJson(`${url}/api/v1/accounts/${probe}`)).body.balance;
  console.log(`the last range account ${probe} reads balance ${String(await probeBalance(c.nodes[0]!.url))} on validator 0`);

  // Restart after SIGKILL, until it votes again.
  const victim = validators - 1;
  const paused = validators - 2;
  await c.waitHeight(0, 5, 60_000);
  await c.kill(victim);
  await c.waitHeight(0, (await c.height(0)) + 5, 60_000);
  const headAtRestart = await c.height(0);
  c.pause(paused);
  const restartedAt = performance.now();
  try {
    await c.startNode(victim);
    const up = performance.now() - restartedAt;
    await until('a block that needs the restarted validator', async () => ((await c.height(0)) > headAtRestart + 1 ? true : undefined), 300_000);
    const voting = performance.now() - restartedAt;
    console.log(`validator ${victim} killed (SIGKILL) and restarted with validator ${paused} paused: listening after ${seconds(up)} s, voting again (block ${headAtRestart + 2} committed, which needs its precommit) after ${seconds(voting)} s (issue 40: within 30 s); its peak RSS ${mib(rssOf(c, victim))} MiB`);
  } finally {
    c.resume(paused);
  }

  // A fresh node from validator 1's signed snapshot, until it serves a read.
  const snapshotSize = async (): Promise<number> => {
    const res = await fetch(`${c.nodes[1]!.url}/api/v1/state/snapshot`);
    let bytes = 0;
    for await (const chunk of res.body!) bytes += (chunk as Uint8Array).length;
    return bytes;
  };
  const servedAt = performance.now();
  const size = await snapshotSize();
  console.log(`validator 1's snapshot: ${(size / 2 ** 20).toFixed(0)} MiB of JSON, built and downloaded in ${seconds(performance.now() - servedAt)} s (validator 1's peak RSS now ${mib(rssOf(c, 1))} MiB)`);
  const followerAt = performance.now();
  const follower = await c.addFollower(['--snapshot-from', c.nodes[1]!.url]);
  const followerListening = performance.now() - followerAt;
  await until('the follower to serve the account read', async () => ((await probeBalance(follower.url).catch(() => undefined)) !== undefined ? true : undefined), 300_000);
  const reading = performance.now() - followerAt;
  const installed = follower.logs.find((l) => l.includes('started from a signed state snapshot')) ?? '';
  console.log(`fresh node from validator 1's snapshot (${/"keys":(\d+)/.exec(installed)?.[1] ?? '?'} keys at height ${/"height":(\d+)/.exec(installed)?.[1] ?? '?'}): listening ${seconds(followerListening)} s, serving the account read ${seconds(reading)} s after its start (issue 40: within 60 s); its peak RSS ${mib(rssOf(c, follower.index))} MiB (the download streams; the install writes 2,048 entries a run and builds the tree once at the end, 72 bytes a key)`);
  console.log(`peak RSS per validator at the end (MiB): ${c.nodes.slice(0, validators).map((_, i) => mib(rssOf(c, i))).join(', ')} (issue 40: below 1024)`);
} finally {
  await c.stop();
}
