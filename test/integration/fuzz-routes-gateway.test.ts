import { describeRouteFuzz } from '../fuzz/route-fuzz-suite.js';

// Every route of a real gateway fuzzed from its own API reference: test/fuzz/route-fuzz-suite.ts.
describeRouteFuzz('gateway');
