import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { NodeRefusal } from '../client/node-client.js';
import { Relayer, refusesThePacket } from './relayer.js';
import type { ChannelState, ClientState, PacketState, RelayerChain, ServedHeader, ServedProof, TxOutcome, WireValidator } from './chain-endpoint.js';

/*
 * The relayer's decisions against two in-memory chains that keep §69's rules where they matter to
 * it (a recv refused once the client reached the timeout, a packet taken once, proof heights the
 * client verified) and advance one block per submission. Proofs are stand-ins: what is under test
 * is what the relayer submits, when, and that it reads everything back from the chains.
 */

interface Client {
  latest: number;
  validators: WireValidator[];
  heights: number[];
  updated: number;
  /** [chain height, client height] after each update: the §66 key `ibc/clients/<id>/height` through time. */
  history: Array<[number, number]>;
}

class MemoryChain implements RelayerChain {
  height = 1;
  readonly out: Array<PacketState & { settledAt?: number }> = [];
  readonly inbound = new Map<string, PacketState>();
  readonly clients = new Map<string, Client>();
  readonly submissions: Array<{ op: string; body: Readonly<Record<string, unknown>> }> = [];
  /** Packet ids this chain will not credit (its channel does not allow the denom). */
  readonly refuses = new Set<string>();
  /** [height, set] from each set change on: `ibc/valset` from that block, signing from two blocks later (the kernel's delay). */
  readonly sets: Array<[number, WireValidator[]]> = [[0, [{ public_key: 'aa', power: 10 }]]];

  valsetAt(height: number): WireValidator[] {
    return ([...this.sets].reverse().find(([h]) => h <= height) ?? this.sets[0]!)[1];
  }

  /** The counterparty, whose headers this chain's client judges. */
  other: MemoryChain | undefined;

  constructor(readonly chainId: string, readonly counterparty: string) {}

  send(amount: number, timeoutBlocks = 20): PacketState {
    const sequence = this.out.length + 1;
    const p: PacketState = { id: `${this.chainId}/ch-1/${sequence}`, kind: 'transfer', channel: 'ch-1', sequence, source_chain: this.chainId, dest_chain: this.counterparty, sender: 's', receiver: 'r', denom: 'ucoin', amount, memo: '', timeout_height: this.height + timeoutBlocks, status: 'locked', height: this.height };
    this.out.push(p);
    this.height++;
    return p;
  }
  async latestHeader(): Promise<ServedHeader> {
    return { height: this.height, chain_id: this.chainId, validators: this.valsetAt(this.height) };
  }
  async header(height: number): Promise<ServedHeader | undefined> {
    return height <= this.height ? { height, chain_id: this.chainId, validators: this.valsetAt(height) } : undefined;
  }
  async client(chainId: string): Promise<ClientState | undefined> {
    const c = this.clients.get(chainId);
    return c && { chain_id: chainId, latest_height: c.latest, heights: [...c.heights], updated_height: c.updated, validators: c.validators };
  }
  async channels(): Promise<ChannelState[]> {
    return [{ channel: 'ch-1', port: 'transfer', counterparty_chain: this.counterparty, state: 'open' }];
  }
  async packets(f: Readonly<Record<string, string>>): Promise<PacketState[]> {
    return this.out.filter((p) => f.status === undefined || p.status === f.status);
  }
  async received(id: string): Promise<PacketState | undefined> {
    return this.inbound.get(id);
  }
  async proof(key: string, height: number): Promise<ServedProof> {
    const [, kind, a, b] = key.split('/');
    if (kind === 'valset') return { exists: true, value_hex: Buffer.from(this.valsetText(this.valsetAt(height))).toString('hex'), proof: key };
    if (kind === 'receipts') {
      const r = [...this.inbound.values()].find((p) => p.channel === a && p.sequence === Number(b));
      return { exists: r !== undefined && r.height <= height, value_hex: null, proof: key };
    }
    if (kind === 'commitments') {
      const p = this.out.find((q) => q.channel === a && q.sequence === Number(b));
      return { exists: p !== undefined && p.height <= height && (p.settledAt === undefined || p.settledAt > height), value_hex: null, proof: key };
    }
    const at = [...(this.clients.get(a!)?.history ?? [])].reverse().find(([h]) => h <= height)?.[1];
    return at === undefined ? { exists: false, value_hex: null, proof: key } : { exists: true, value_hex: Buffer.from(String(at)).toString('hex'), proof: key };
  }
  valsetText(set: readonly WireValidator[]): string {
    return set.map((v) => `${v.public_key}|${v.power}`).join('\n');
  }
  /** Submissions pass or are refused at once; `failing` ones land in a block that fails them. */
  readonly failing = new Set<string>();
  async txStatus(hash: string): Promise<TxOutcome> {
    return this.failing.has(hash) ? { status: 'failed', error: 'out of gas' } : { status: 'confirmed' };
  }
  /** Ops whose submissions are admitted but fail in their block (nothing applied, the fee paid). */
  readonly failOps = new Set<string>();
  /** A paused channel refuses recvs until resumed. */
  paused = false;
  /** A refusal of every recv that the relayer may clear (its balance), while set. */
  transient: string | undefined;
  async submit(op: string, body: Readonly<Record<string, unknown>>): Promise<string> {
    if (this.failOps.has(op)) {
      this.submissions.push({ op: `${op} (failed)`, body });
      this.height++;
      const hash = `0x${this.submissions.length}`;
      this.failing.add(hash);
      return hash;
    }
    this.apply(op, body);
    this.submissions.push({ op, body });
    this.height++;
    return `0x${this.submissions.length}`;
  }

  private apply(op: string, body: Readonly<Record<string, unknown>>): void {
    const refuse = (m: string): never => {
      throw new NodeRefusal(400, m, undefined, { error: m });
    };
    const client = this.clients.get(this.counterparty);
    if (op === 'ibc_client_update') {
      const header = body.header as ServedHeader;
      const h = header.height;
      if (client && h <= client.latest) refuse('not above latest_height');
      // Signed by the set that committed h (ibc/valset two blocks before); the client must trust it.
      const signers = this.other!.valsetAt(h - 2);
      if (client && this.valsetText(signers) !== this.valsetText(client.validators)) refuse('header: signatures of not more than 2/3 of the trusted power');
      const c = client ?? { latest: 0, validators: [], heights: [], updated: 0, history: [] };
      c.latest = h;
      c.validators = header['validators'] as WireValidator[];
      c.heights.push(h);
      c.updated = this.height;
      c.history.push([this.height, h]);
      this.clients.set(this.counterparty, c);
      return;
    }
    if (!client?.heights.includes(Number(body.proof_height))) refuse('proof_height is not a verified height');
    if (op === 'ibc_recv') {
      const id = String(body.packet_id);
      if (this.paused) refuse('channel ch-1 is paused');
      if (this.transient !== undefined) refuse(this.transient);
      if (this.inbound.has(id)) refuse(`packet ${id} was already received`);
      if (client!.latest >= Number(body.timeout_height)) refuse(`packet ${id} timed out`);
      if (this.refuses.has(id)) refuse('denom is not in allowed_denoms');
      const [, channel, sequence] = id.split('/');
      this.inbound.set(id, { id, kind: 'transfer', channel: channel!, sequence: Number(sequence), source_chain: this.counterparty, dest_chain: this.chainId, sender: String(body.sender), receiver: String(body.receiver), amount: Number(body.amount), timeout_height: Number(body.timeout_height), status: 'received', height: this.height });
      return;
    }
    const p = this.out.find((q) => q.id === body.id);
    if (!p || p.status !== 'locked') refuse(`packet ${String(body.id)} is not locked`);
    if (op === 'ibc_timeout' && Number(body.client_height) < p!.timeout_height) refuse('client_height below timeout_height');
    Object.assign(p!, { status: op === 'ibc_ack' ? 'committed' : 'timed_out', settledAt: this.height });
  }
}

const quiet = pino({ level: 'silent' });
function pair(): [MemoryChain, MemoryChain] {
  const a = new MemoryChain('chain-a', 'chain-b');
  const b = new MemoryChain('chain-b', 'chain-a');
  a.other = b;
  b.other = a;
  return [a, b];
}
const ops = (c: MemoryChain): string[] => c.submissions.map((s) => s.op);

/** Counts every submission of `op` the relayer attempts on `chain`, refused ones included. */
function attempts(chain: MemoryChain, op: string): { n: number } {
  const count = { n: 0 };
  const submit = chain.submit.bind(chain);
  chain.submit = async (o, body) => {
    if (o === op) count.n++;
    return submit(o, body);
  };
  return count;
}

async function polls(r: Relayer, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await r.poll();
}

test('clients first, then a packet received under a header at its height and acknowledged', async () => {
  const [a, b] = pair();
  const r = new Relayer({ a, b, log: quiet, intervalMs: 0 });
  await r.poll();
  assert.deepEqual([ops(a), ops(b)], [['ibc_client_update'], ['ibc_client_update']], 'each chain gets a client of the other');
  const p = a.send(50);
  await polls(r, 4);
  assert.equal(b.inbound.get(p.id)?.amount, 50);
  assert.equal(a.out[0]!.status, 'committed');
  assert.equal(ops(b).filter((o) => o === 'ibc_recv').length, 1);
  assert.equal(ops(a).filter((o) => o === 'ibc_ack').length, 1);
});

test('a packet the destination refuses is timed out only after its recv was tried, and never received', async () => {
  const [a, b] = pair();
  const r = new Relayer({ a, b, log: quiet, intervalMs: 0 });
  await r.poll();
  const p = a.send(9, 3);
  b.refuses.add(p.id);
  const recvs = attempts(b, 'ibc_recv');
  // Before the recv is tried, B's client of A stays below the timeout however far A has gone.
  a.height += 10;
  await r.poll();
  assert.equal((await b.client('chain-a'))!.latest_height, p.height);
  await r.poll();
  assert.equal(recvs.n, 1, 'recv tried (and refused)');
  for (let i = 0; i < 10 && a.out[0]!.status === 'locked'; i++) await r.poll();
  assert.equal(a.out[0]!.status, 'timed_out');
  assert.equal(b.inbound.has(p.id), false);
  const timeout = a.submissions.find((s) => s.op === 'ibc_timeout')!;
  assert.ok(Number(timeout.body.client_height) >= p.timeout_height);
});

test('an untried packet holds the client below its timeout: the update goes to its own height', async () => {
  const [a, b] = pair();
  const r = new Relayer({ a, b, log: quiet, intervalMs: 0 });
  await r.poll();
  const p = a.send(5, 2);
  a.height += 10; // A's newest header is far past the packet's timeout
  await r.poll();
  const update = b.submissions.filter((s) => s.op === 'ibc_client_update').at(-1)!;
  assert.equal((update.body.header as ServedHeader).height, p.height);
  await polls(r, 3);
  assert.equal(b.inbound.get(p.id)?.amount, 5, 'received before its timeout');
});

test('a new relayer on the same chains reads where they stand and delivers nothing twice', async () => {
  const [a, b] = pair();
  const first = new Relayer({ a, b, log: quiet, intervalMs: 0 });
  await first.poll();
  const p1 = a.send(1);
  const p2 = b.send(2);
  await first.poll(); // clients move; nothing received yet
  const second = new Relayer({ a, b, log: quiet, intervalMs: 0 });
  await polls(second, 5);
  assert.equal(a.out[0]!.status, 'committed');
  assert.equal(b.out[0]!.status, 'committed');
  assert.deepEqual([b.inbound.get(p1.id)?.amount, a.inbound.get(p2.id)?.amount], [1, 2]);
  const recvs = [...a.submissions, ...b.submissions].filter((s) => s.op === 'ibc_recv').map((s) => s.body.packet_id);
  assert.deepEqual(recvs.sort(), [p1.id, p2.id].sort(), 'one recv each');
});

test('a submission refused at admission is tried again next poll (decisions.md §70), however long the interval', async () => {
  const [a, b] = pair();
  const r = new Relayer({ a, b, log: quiet, intervalMs: 60_000 });
  await r.poll();
  const p = a.send(3, 100);
  b.refuses.add(p.id);
  const recvs = attempts(b, 'ibc_recv');
  for (let i = 0; i < 3 && recvs.n === 0; i++) await r.poll();
  assert.equal(recvs.n, 1, 'tried');
  await polls(r, 3);
  assert.equal(recvs.n, 4, 'then once a poll');
  assert.equal(b.inbound.has(p.id), false);
});

test('after a change of the source\'s validator set the client goes through the header of the change, then on', async () => {
  const [a, b] = pair();
  const r = new Relayer({ a, b, log: quiet, intervalMs: 0 });
  await r.poll();
  const before = (await b.client('chain-a'))!.latest_height;
  a.height += 5;
  const change = a.height;
  a.sets.push([change, [{ public_key: 'bb', power: 10 }, { public_key: 'cc', power: 5 }]]);
  a.height += 7;
  const updates = () => b.submissions.filter((s) => s.op === 'ibc_client_update').map((s) => (s.body.header as ServedHeader).height);
  const seen = updates().length;
  await r.poll();
  assert.deepEqual(updates().slice(seen), [change], `from ${before} to the set change first`);
  await r.poll();
  assert.equal(updates().length, seen + 2);
  assert.ok(updates().at(-1)! >= change + 2, 'then a header the new set signed');
  assert.deepEqual((await b.client('chain-a'))!.validators.map((v) => v.public_key), ['bb', 'cc']);
});

test('a recv refused for a reason the relayer may clear (its balance) keeps the client below its timeout, then is delivered', async () => {
  const [a, b] = pair();
  const r = new Relayer({ a, b, log: quiet, intervalMs: 0 });
  await r.poll();
  const p = a.send(7, 3);
  b.transient = 'insufficient balance: chain:abc.human holds 3 ucoin, the fee is 10';
  const recvs = attempts(b, 'ibc_recv');
  for (let i = 0; i < 8; i++) {
    a.height += 2;
    await r.poll();
  }
  assert.ok(recvs.n >= 2, 'tried again and again');
  assert.ok((await b.client('chain-a'))!.latest_height < p.timeout_height, 'the client never reached the timeout');
  assert.equal(a.out[0]!.status, 'locked');
  b.transient = undefined;
  await polls(r, 3);
  assert.equal(b.inbound.get(p.id)?.amount, 7, 'delivered, not refunded');
  assert.equal(a.out[0]!.status, 'committed');
});

test('a recv a paused channel refuses lets the client move on: the packet times out and its sender is refunded (decisions.md §67, §70)', async () => {
  const [a, b] = pair();
  const r = new Relayer({ a, b, log: quiet, intervalMs: 0 });
  await r.poll();
  const p = a.send(7, 3);
  b.paused = true;
  for (let i = 0; i < 8 && a.out[0]!.status === 'locked'; i++) {
    a.height += 2;
    await r.poll();
  }
  assert.ok((await b.client('chain-a'))!.latest_height >= p.timeout_height, 'the client went past the timeout once the recv was tried');
  assert.equal(a.out[0]!.status, 'timed_out');
  assert.equal(b.inbound.has(p.id), false);
});

test('a submission that fails in its block waits a growing delay instead of being resent (and paid for) every poll', async () => {
  const [a, b] = pair();
  const r = new Relayer({ a, b, log: quiet, intervalMs: 60_000 });
  await r.poll();
  const p = a.send(4, 100);
  b.failOps.add('ibc_recv');
  const recvs = attempts(b, 'ibc_recv');
  await polls(r, 6);
  assert.equal(recvs.n, 1, 'submitted once, failed in its block, then waits out its delay');
  // With no delay to wait out, the next relayer resends; once it passes, it is delivered.
  b.failOps.clear();
  await polls(new Relayer({ a, b, log: quiet, intervalMs: 0 }), 3);
  assert.equal(b.inbound.get(p.id)?.amount, 4);
});

test('what the relayer keeps about a packet is dropped once the packet is settled', async () => {
  const [a, b] = pair();
  const r = new Relayer({ a, b, log: quiet, intervalMs: 0 });
  await r.poll();
  const kept = r as unknown as { refusedRecv: Set<string>; retries: Map<string, unknown>; inFlight: Map<string, unknown> };
  const delivered = a.send(1);
  const refunded = a.send(2, 3);
  b.refuses.add(refunded.id);
  for (let i = 0; i < 12 && a.out.some((p) => p.status === 'locked'); i++) await r.poll();
  assert.deepEqual(a.out.map((p) => p.status), ['committed', 'timed_out']);
  await r.poll();
  const keys = [...kept.retries.keys(), ...kept.inFlight.keys()];
  assert.deepEqual(kept.refusedRecv.size, 0);
  assert.ok(keys.every((k) => k.startsWith('client ')), `only client updates remain: ${keys.join(', ')}`);
  assert.ok(!keys.some((k) => k.includes(delivered.id) || k.includes(refunded.id)));
});

test('refusals about the packet itself are told from those that may clear (the ibc plugin\'s recv messages)', () => {
  const aboutThePacket = [
    'packet_id "x" must be <source chain id>/<channel>/<sequence>',
    'packet_id names source chain c, not channel ch-1\'s counterparty d',
    'kind must be transfer or attest, not "x"',
    'a attest packet cannot arrive on transfer channel ch-1',
    'a transfer packet needs sender, receiver, denom and amount',
    'receiver must be 1-128 characters without |',
    'amount must be at least 1',
    'receiver cosmos1x is not an address of this chain',
    'chain:abc.human is not a valid recipient: it is neither a key-derived address (chain:<15 hex>.human) nor a record that exists on this chain',
    'denom transfer/ch-1/uatom comes back through ch-1 but uatom is not the native denom ucoin',
    'channel ch-1 has 5 ucoin outstanding, less than the 9 coming back',
    "denom uosmo: uosmo is not in channel ch-1's allowed_denoms",
    'amount 10 is above ibc_max_packet 5',
    'channel ch-1 is paused',
  ];
  const mayClear = [
    'proof_height 12 is not a verified height of the client of chain-a (GET /api/v1/ibc/client/chain-a heights)',
    'nonce 5 is not above the last nonce 9',
    'insufficient balance: chain:abc.human holds 3 ucoin, the fee is 10',
    'gas_price 1 is below the base fee 2',
  ];
  assert.deepEqual(aboutThePacket.filter((m) => !refusesThePacket(m)), []);
  assert.deepEqual(mayClear.filter(refusesThePacket), []);
});
