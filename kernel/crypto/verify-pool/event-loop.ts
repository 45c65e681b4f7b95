import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Gauge, type Registry } from 'prom-client';

export interface EventLoopMonitor {
  /** Current window's delay percentiles in seconds (the window restarts at each scrape). */
  snapshot(): { p50: number; p99: number; max: number };
  stop(): void;
}

export const EVENT_LOOP_METRICS = ['event_loop_delay_p99_seconds', 'event_loop_delay_p50_seconds', 'event_loop_delay_max_seconds'] as const;

/**
 * Event-loop delay (perf_hooks.monitorEventLoopDelay) as gauges on `registry`: the measure of
 * whether verification really stays off the main thread. Each scrape reports the delays since
 * the previous scrape, then resets the histogram, so a stall shows up in the next scrape rather
 * than being averaged into the node's whole lifetime.
 */
export function monitorEventLoop(registry: Registry, options: { resolutionMs?: number } = {}): EventLoopMonitor {
  const resolutionMs = Math.max(1, options.resolutionMs ?? 10);
  const h = monitorEventLoopDelay({ resolution: resolutionMs });
  h.enable();
  // The histogram records the whole gap between two ticks of its sampling timer, so an idle loop
  // reads as the resolution (10 ms) and a 30 ms stall as 40 ms; the delay is the part beyond it.
  const resolutionNs = resolutionMs * 1e6;
  const seconds = (recordedNs: number): number => Math.max(0, recordedNs - resolutionNs) / 1e9;
  const snapshot = (): { p50: number; p99: number; max: number } => ({
    // Before the first sample the histogram reports NaN/huge sentinels; report 0 then.
    p50: h.count > 0 ? seconds(h.percentile(50)) : 0,
    p99: h.count > 0 ? seconds(h.percentile(99)) : 0,
    max: h.count > 0 ? seconds(h.max) : 0,
  });
  const p50 = new Gauge({ name: 'event_loop_delay_p50_seconds', help: 'event-loop delay, median since the last scrape', registers: [] });
  const max = new Gauge({ name: 'event_loop_delay_max_seconds', help: 'event-loop delay, maximum since the last scrape', registers: [] });
  const p99 = new Gauge({
    name: 'event_loop_delay_p99_seconds',
    help: 'event-loop delay, 99th percentile since the last scrape',
    registers: [],
    // One collect sets all three from one snapshot and then resets; it is registered first so
    // the registry (which collects in registration order) runs it before reading the others.
    collect() {
      const s = snapshot();
      this.set(s.p99);
      p50.set(s.p50);
      max.set(s.max);
      h.reset();
    },
  });
  registry.registerMetric(p99);
  registry.registerMetric(p50);
  registry.registerMetric(max);
  return {
    snapshot,
    stop() {
      h.disable();
      for (const name of EVENT_LOOP_METRICS) registry.removeSingleMetric(name);
    },
  };
}
