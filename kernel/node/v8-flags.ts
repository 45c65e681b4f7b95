/**
 * V8 flags a validator process is started with (devnet launcher, test clusters, and the `chain`
 * bin's shebang). A node under load allocates mostly short-lived 10 KB transaction texts; a
 * larger young generation than Node's 16 MiB semi-space lets them die in scavenges instead of
 * being promoted and marked. On the 4-validator load bench (bench/load.bench.ts) 64 MiB gave +16%
 * committed throughput over the default; 32 MiB then matched 64 in throughput and CPU per
 * transaction (197–200 against 183–191 tx/s at 210 offered, pqclean) with 40–60 MiB less peak
 * RSS per validator (450–466 against 500–509 MiB) and a lower event-loop p99 at saturation.
 * These must be given at process start: V8 sizes its heap before any script runs.
 */
export const NODE_V8_FLAGS: readonly string[] = ['--max-semi-space-size=32'];
