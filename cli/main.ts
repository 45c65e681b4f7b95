#!/usr/bin/env -S node --max-semi-space-size=32
// The flag is NODE_V8_FLAGS (kernel/node/v8-flags.ts): a shebang cannot import it.
import { runChain } from './program.js';

runChain(process.argv, async () => (await import('../plugins/index.js')).PLUGIN_CATALOGUE);
