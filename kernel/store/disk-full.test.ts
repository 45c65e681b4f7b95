import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isDiskFull } from './disk-full.js';

test('a full disk is recognised from fs, from LevelDB and through causes; nothing else is', () => {
  const fs = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  const level = Object.assign(new Error('IO error: /data/chain/000005.log: No space left on device'), { code: 'LEVEL_IO_ERROR' });
  const wrapped = new Error('WAL append failed and the log could not be cut back', { cause: [new Error('first'), fs] });
  for (const e of [fs, level, wrapped, new Error('block production failed', { cause: level })]) assert.equal(isDiskFull(e), true, e.message);
  for (const e of [new Error('EACCES: permission denied'), Object.assign(new Error('x'), { code: 'EIO' }), 'ENOSPC', null, undefined]) assert.equal(isDiskFull(e), false, String(e));
});
