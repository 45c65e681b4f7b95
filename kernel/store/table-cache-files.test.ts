import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tableCacheFiles } from './table-cache-files.js';

const limits = (soft: string): string =>
  `Limit                     Soft Limit           Hard Limit           Units     \nMax processes             95000                95000                processes \nMax open files            ${soft}                1048576              files     \nMax locked memory         8388608              8388608              bytes     \n`;

test('LevelDB\'s 1,000 mapped tables plus the fifth of the open-files limit it keeps descriptors for, at most 20,000', () => {
  assert.equal(tableCacheFiles(limits('20000')), 5_000);
  assert.equal(tableCacheFiles(limits('1024')), 1_204);
  assert.equal(tableCacheFiles(limits('1048576')), 20_000);
  assert.equal(tableCacheFiles(limits('unlimited')), 20_000);
});

test('a text without the line, or a value that is not a number, gives LevelDB\'s default', () => {
  assert.equal(tableCacheFiles(''), 1_000);
  assert.equal(tableCacheFiles(limits('many')), 1_000);
});

test('this process\'s own limit gives a number in range', () => {
  const n = tableCacheFiles();
  assert.ok(Number.isInteger(n) && n >= 1_000 && n <= 20_000, String(n));
});
