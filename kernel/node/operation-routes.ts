import { badRequest } from '../errors.js';
import type { OperationRegistry } from '../ops/registry.js';
import { defaultMember, groupRouteOperations, selectOperation } from '../ops/route-dispatch.js';
import type { RouteTable } from '../host/route-table.js';
import type { KernelServices } from './services.js';

/**
 * The REST routes of every declared operation, served by the kernel for the plugin that owns it:
 * the body (and the path's `:params`) becomes the operation's transaction, admitted as
 * decisions.md §16 orders, answered as §17 says. A route several operations share is served
 * once and hands each body to the operation it selects (route-dispatch.ts); the route belongs to
 * the operation that takes the bodies no selector takes.
 */
export function registerOperationRoutes(routes: RouteTable, s: KernelServices, operations: OperationRegistry): void {
  for (const group of operations.routeGroups()) {
    const primary = defaultMember(group).op;
    const owner = primary.plugin;
    routes.withOwner(owner, () =>
      routes.add(group.method, group.path, async (req) => {
        try {
          const body = req.body !== null && typeof req.body === 'object' && !Array.isArray(req.body) ? { ...(req.body as Record<string, unknown>), ...req.params } : req.body;
          const op = selectOperation(group, body);
          if (op === undefined) throw badRequest(`${group.method} ${group.path}: no operation of this network takes this body (${group.members.map((m) => m.op.spec.name).join(', ')} each take their own)`);
          const answer = await s.chain.admitOperation(op.spec.name, req.body, req.params, s.now());
          s.metrics.txsSubmitted.inc();
          return answer;
        } catch (e) {
          s.metrics.txsRejected.inc({ status: String((e as { status?: number }).status ?? 500) });
          throw e;
        }
      }, groupRouteOperations(group)),
    );
  }
}
