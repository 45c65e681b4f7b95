import type { OperationRegistry } from '../ops/registry.js';
import type { RouteTable } from './route-table.js';
import type { KernelServices } from './services.js';

/**
 * The REST routes of every declared operation, served by the kernel for the plugin that owns it:
 * the body (and the path's `:params`) becomes the operation's transaction, admitted as
 * decisions.md §16 orders, answered as §17 says.
 */
export function registerOperationRoutes(routes: RouteTable, s: KernelServices, operations: OperationRegistry): void {
  for (const { spec, plugin } of operations.list()) {
    for (const r of spec.routes) {
      routes.withOwner(plugin, () =>
        routes.add(r.method, r.path, async (req) => {
          try {
            const answer = await s.chain.admitOperation(spec.name, req.body, req.params, s.now());
            s.metrics.txsSubmitted.inc();
            return answer;
          } catch (e) {
            s.metrics.txsRejected.inc({ status: String((e as { status?: number }).status ?? 500) });
            throw e;
          }
        }, { operation: spec }),
      );
    }
  }
}
