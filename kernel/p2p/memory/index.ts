export { Prng } from './prng.js';
export { Scheduler, type RunOptions, type SimEvent } from './scheduler.js';
export { MemoryNetwork, MemoryTransport, PERFECT_LINKS, type LinkConditions, type NetworkStats, type Partition } from './network.js';
