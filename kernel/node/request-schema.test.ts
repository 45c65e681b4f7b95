import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isChainError } from '../errors.js';
import { readParams, readQuery } from './request-schema.js';
import { AccountParams, TransactionListQuery } from './read-schemas.js';
import { pageFrom } from './pagination.js';

const q = (s: string) => readQuery(TransactionListQuery, new URLSearchParams(s));
const refused = (fn: () => unknown, re: RegExp) => assert.throws(fn, (e: unknown) => isChainError(e) && e.status === 400 && re.test(e.message));

test('a query is read against the route\'s schema: digits as integers, the default filled, a limit above the cap capped', () => {
  assert.deepEqual(q(''), { limit: 50 });
  assert.deepEqual(q('limit=7&offset=3'), { limit: 7, offset: 3 });
  assert.equal(q('limit=999').limit, 200, 'part 2: transactions cap at 200, a larger limit is capped');
  assert.equal(q('limit=99999999999999999999').limit, 200);
  assert.deepEqual(pageFrom(q('limit=10&page=3')), { limit: 10, offset: 20 });
  assert.deepEqual(pageFrom(q('limit=10&page=3&offset=1')), { limit: 10, offset: 1 });
  assert.deepEqual(q('type=staking&address=chain:0123456789abcde.human&unknown=x'), { type: 'staking', address: 'chain:0123456789abcde.human', limit: 50 });
  assert.deepEqual(q('type='), { limit: 50 }, 'an empty value is an absent one');
});

test('a refused parameter is a 400 naming it, in the schema\'s words where it has them', () => {
  refused(() => q('limit=0'), /query parameter limit: Expected integer to be greater or equal to 1/);
  refused(() => q('limit=ten'), /query parameter limit: Expected integer/);
  refused(() => q('offset=-1'), /offset/);
  refused(() => q('offset=1000000000'), /offset/);
  refused(() => q('page=0'), /page/);
  refused(() => q('address=alice'), /query parameter address: "alice" is not a chain address/);
  refused(() => q('type=Bad!'), /type "Bad!" is not a transaction type/);
  refused(() => q('hash=0x12'), /transaction hash must be 0x followed by 64 hex characters/);
  refused(() => readParams(AccountParams, { address: 'x?y#z%' }), /path parameter address: "x\?y#z%" is not a chain address/);
  assert.deepEqual(readParams(AccountParams, { address: 'chain:0123456789abcde.human' }), { address: 'chain:0123456789abcde.human' });
});
