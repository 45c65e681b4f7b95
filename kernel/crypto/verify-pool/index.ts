export { VerifyPool, type VerifyPoolOptions } from './pool.js';
export { PooledVerifier } from './pooled-verifier.js';
export { monitorEventLoop, EVENT_LOOP_METRICS, type EventLoopMonitor } from './event-loop.js';
export type { VerifyItem } from './protocol.js';
