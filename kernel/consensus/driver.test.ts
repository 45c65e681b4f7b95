import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { block, CHAIN, fixture, hashTestBlock, machineFor, proposal, vote, type Fixture } from '../../test/simulation/consensus-fixtures.js';
import { hashKey } from './bytes.js';
import { voteSignBytes } from './encoding.js';
import { ConsensusDriver, type ConsensusEffect, type ValueHost } from './driver.js';
import { LastSignedGuard, type LastSignedState } from './last-signed-guard.js';
import { LocalPrivValidator } from './priv-validator.js';

function host(validate: ValueHost['validateValue'] = async () => true): ValueHost {
  return {
    getValue: async (height, round) => {
      const b = { label: `h${height}r${round}` };
      return { hash: hashTestBlock(b), block: b };
    },
    validateValue: validate,
  };
}

function driverFor(f: Fixture, self: string, h: ValueHost, guard?: LastSignedGuard, persisted?: LastSignedState[]): ConsensusDriver {
  const signer = new LocalPrivValidator({
    address: self,
    keyPair: f.keys.get(self)!,
    provider: f.provider,
    ...(guard !== undefined ? { guard } : {}),
    persist: async (s) => void persisted?.push(s),
  });
  return new ConsensusDriver({ machine: machineFor(f, self), signer, host: h, clock: () => 1234 });
}

const kinds = (effects: readonly ConsensusEffect[]): string[] =>
  effects.map((e) => (e.type === 'broadcastVote' ? `${e.type}:${e.vote.vote.type}` : e.type));

describe('ConsensusDriver', () => {
  test('a lone validator proposes, votes and decides in one input, persisting before each release', async () => {
    const f = fixture([10n]);
    const self = f.addresses[0] as string;
    const persisted: LastSignedState[] = [];
    const d = driverFor(f, self, host(), undefined, persisted);
    const out = await d.start(1, f.set);
    assert.deepEqual(kinds(out), ['broadcastProposal', 'broadcastVote:prevote', 'broadcastVote:precommit', 'decide']);
    const p = out[0];
    assert.equal(p?.type === 'broadcastProposal' && p.proposal.proposal.timestampMs, 1234);
    assert.deepEqual(persisted.map((s) => s.entries.length), [1, 2, 3]);
    const decide = out[3];
    assert.equal(decide?.type === 'decide' && decide.certificate.precommits.length, 1);
    const next = await d.start(2, f.set);
    assert.equal(next.filter((e) => e.type === 'decide').length, 1);
  });

  test('the signer refuses a vote that conflicts with its persisted state; nothing is broadcast', async () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const self = f.addresses.find((a) => a !== f.set.proposer(1, 0).address) as string;
    const [a, other] = [block('a'), block('other')];
    const guard = new LastSignedGuard();
    const earlier = { type: 'prevote' as const, height: 1, round: 0, blockHash: other.hash, validator: self };
    guard.record(1, 0, 'prevote', voteSignBytes(CHAIN, earlier), hashKey(other.hash), new Uint8Array(32));
    const d = driverFor(f, self, host(), guard);
    await d.start(1, f.set);
    const out = await d.onProposal(proposal(f, 1, 0, -1, a.hash), a.block);
    assert.equal(out.filter((e) => e.type === 'broadcastVote').length, 0);
    const log = out.find((e) => e.type === 'log');
    assert.ok(log && log.type === 'log' && log.level === 'error' && /refused/.test(log.message));
  });

  test('a throwing validateValue counts as invalid: nil prevote and an error log', async () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const self = f.addresses.find((a) => a !== f.set.proposer(1, 0).address) as string;
    const a = block('a');
    const d = driverFor(
      f,
      self,
      host(async () => {
        throw new Error('app crashed');
      }),
    );
    await d.start(1, f.set);
    const out = await d.onProposal(proposal(f, 1, 0, -1, a.hash), a.block);
    const v = out.find((e) => e.type === 'broadcastVote');
    assert.ok(v && v.type === 'broadcastVote' && v.vote.vote.blockHash === null);
    assert.ok(out.some((e) => e.type === 'log' && e.level === 'error'));
  });

  test('gossip re-sends our votes and the current proposal', async () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const self = f.addresses.find((a) => a !== f.set.proposer(1, 0).address) as string;
    const a = block('a');
    const d = driverFor(f, self, host());
    await d.start(1, f.set);
    await d.onProposal(proposal(f, 1, 0, -1, a.hash), a.block);
    assert.deepEqual(kinds(await d.gossip()), ['broadcastProposal', 'broadcastVote:prevote']);
  });

  test('inputs are serialised even when the host calls without awaiting', async () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const self = f.addresses.find((a) => a !== f.set.proposer(1, 0).address) as string;
    const a = block('a');
    const d = driverFor(f, self, host(async () => new Promise<boolean>((r) => setImmediate(() => r(true)))));
    const started = d.start(1, f.set);
    const proposed = d.onProposal(proposal(f, 1, 0, -1, a.hash), a.block);
    const timedOut = d.onTimeout('propose', 1, 0);
    await started;
    assert.deepEqual(kinds(await proposed), ['broadcastVote:prevote']);
    assert.deepEqual(await timedOut, [], 'the proposal was fully handled first, so the timeout finds step prevote');
  });

  test('a validateValue that throws leaves the block unvalidated, not invalid: a later answer can still decide it', async () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const self = f.addresses.find((a) => a !== f.set.proposer(1, 0).address) as string;
    const a = block('a');
    let calls = 0;
    const d = driverFor(f, self, host(async () => {
      calls++;
      if (calls === 1) throw new Error('disk read failed');
      return true;
    }));
    await d.start(1, f.set);
    const first = await d.onProposal(proposal(f, 1, 0, -1, a.hash), a.block);
    assert.deepEqual(kinds(first).filter((k) => k.startsWith('broadcast')), ['broadcastVote:prevote']);
    const others = f.addresses.filter((x) => x !== self);
    for (const v of others) await d.onVote(vote(f, 'precommit', 1, 0, a.hash, v));
    const out = await d.onTimeout('precommit', 1, 0);
    assert.equal(calls, 2);
    assert.ok(out.some((e) => e.type === 'decide'), 'decided once the application answered');
  });

  test('a signature whose persisting failed is persisted before it is handed out again', async () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const self = f.addresses[0] as string;
    const writes: LastSignedState[] = [];
    let failNext = true;
    const signer = new LocalPrivValidator({
      address: self,
      keyPair: f.keys.get(self)!,
      provider: f.provider,
      persist: async (s) => {
        if (failNext) {
          failNext = false;
          throw new Error('disk full');
        }
        writes.push(s);
      },
    });
    const v = { type: 'prevote' as const, height: 1, round: 0, blockHash: null, validator: self };
    await assert.rejects(signer.signVote(CHAIN, v), /disk full/);
    assert.equal(writes.length, 0);
    const again = await signer.signVote(CHAIN, v);
    assert.equal(writes.length, 1, 'persisted before the reused signature left');
    assert.equal(writes[0]!.entries.length, 1);
    assert.ok(f.provider.verify(again.signature, voteSignBytes(CHAIN, v), f.keys.get(self)!.publicKey));
    await signer.signVote(CHAIN, v);
    assert.equal(writes.length, 1, 'nothing more to persist');
  });

  test('a signer for another address is refused at construction', () => {
    const f = fixture([1n, 1n]);
    const [x, y] = f.addresses as [string, string];
    const signer = new LocalPrivValidator({ address: y, keyPair: f.keys.get(y)!, provider: f.provider });
    assert.throws(() => new ConsensusDriver({ machine: machineFor(f, x), signer, host: host() }));
  });
});
