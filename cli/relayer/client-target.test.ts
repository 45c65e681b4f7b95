import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clientTarget, proofHeightFrom, timeoutBound } from './client-target.js';

test('the client goes to the newest header when no untried packet would time out on the way', () => {
  assert.equal(clientTarget({ latest: 10, newestHeader: 30, waiting: [{ height: 12, timeoutHeight: 40, tried: false }], needed: [12] }), 30);
  assert.equal(clientTarget({ latest: 30, newestHeader: 30, waiting: [], needed: [] }), undefined, 'already there');
  assert.equal(clientTarget({ latest: 10, newestHeader: undefined, waiting: [], needed: [] }), undefined, 'no header yet');
});

test('the client stops below the timeout of a packet whose recv was not tried, at the highest needed height', () => {
  const waiting = [
    { height: 12, timeoutHeight: 22, tried: false },
    { height: 15, timeoutHeight: 25, tried: false },
  ];
  assert.equal(timeoutBound(10, waiting), 22);
  assert.equal(clientTarget({ latest: 10, newestHeader: 30, waiting, needed: [12, 15, 24] }), 15, 'both packets provable at 15, below 22');
  assert.equal(clientTarget({ latest: 10, newestHeader: 21, waiting, needed: [12] }), 21, 'the newest header is below every bound');
  assert.equal(clientTarget({ latest: 15, newestHeader: 30, waiting, needed: [12, 15] }), undefined, 'nothing needed above 15 and below 22');
});

test('a refused packet no longer holds the client back; a timeout the client passed holds nothing', () => {
  assert.equal(clientTarget({ latest: 10, newestHeader: 30, waiting: [{ height: 12, timeoutHeight: 22, tried: true }], needed: [] }), 30);
  assert.equal(timeoutBound(25, [{ height: 12, timeoutHeight: 22, tried: false }]), Number.POSITIVE_INFINITY);
});

test('a proof height is the least verified height at or above what wrote the record', () => {
  assert.equal(proofHeightFrom([4, 8, 12, 16], 9), 12);
  assert.equal(proofHeightFrom([4, 8, 12, 16], 8), 8);
  assert.equal(proofHeightFrom([4, 8], 9), undefined);
  assert.equal(proofHeightFrom([], 1), undefined);
});
