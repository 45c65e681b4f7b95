import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseShardMap } from './shard-map.js';
import { ConfigError } from './env.js';

test('CHAIN_SHARD_NODES pairs: a repeated shard adds failover nodes, "|" too; trailing slashes go', () => {
  assert.deepEqual(parseShardMap('1=http://b/, 0=http://a|http://a2,0=https://a3', undefined), [['http://a', 'http://a2', 'https://a3'], ['http://b']]);
});

test('CHAIN_SHARD_NODES wins over SHARD_NODE_URLS; neither set is undefined', () => {
  assert.deepEqual(parseShardMap('0=http://a', 'http://x,http://y'), [['http://a']]);
  assert.deepEqual(parseShardMap(undefined, 'http://x|http://x2,http://y'), [['http://x', 'http://x2'], ['http://y']]);
  assert.equal(parseShardMap(undefined, undefined), undefined);
});

test('a bad entry is a ConfigError naming the variable', () => {
  for (const [pairs, positional, words] of [
    ['0=http://a,2=http://c', undefined, /CHAIN_SHARD_NODES: shard 1 has no node/],
    ['http://a', undefined, /CHAIN_SHARD_NODES: "http:\/\/a" is not shard=url/],
    ['0=ftp://a', undefined, /CHAIN_SHARD_NODES: "ftp:\/\/a" is not an http\(s\) URL/],
    [' , ', undefined, /CHAIN_SHARD_NODES: no shard=url pairs/],
    [undefined, ' , ', /SHARD_NODE_URLS: no URLs/],
    [undefined, 'http://a,b', /SHARD_NODE_URLS: "b"/],
  ] as const) {
    assert.throws(() => parseShardMap(pairs, positional), (e: unknown) => e instanceof ConfigError && words.test(e.message));
  }
});
