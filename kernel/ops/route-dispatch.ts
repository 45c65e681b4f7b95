import { Value } from '@sinclair/typebox/value';
import type { TObject } from '@sinclair/typebox';
import type { OperationRoute, OperationSpec } from './operation.js';

/** One operation on one of its routes. */
export interface RouteMember<O> {
  readonly op: O;
  readonly route: OperationRoute;
}

/**
 * A REST route and the operations submitted through it: one, or several told apart by their
 * body (`OperationRoute.selectedBy`): part 1's `POST /api/v1/nodes/register` registers a `.node`,
 * a `.vault` or an `.app` name. Members are in name order, so every node and the gateway pick
 * alike.
 */
export interface OperationRouteGroup<O> {
  readonly method: OperationRoute['method'];
  readonly path: string;
  readonly members: ReadonlyArray<RouteMember<O>>;
}

/**
 * Every route of `ops`, with the operations that share it. Throws (a build that cannot serve its
 * routes) for a shared route with more than one operation taking the bodies no selector takes,
 * or whose members disagree on `nodeOnly`.
 */
export function operationRouteGroups<O>(ops: readonly O[], specOf: (o: O) => Pick<OperationSpec, 'name' | 'routes'>): OperationRouteGroup<O>[] {
  const groups = new Map<string, { method: OperationRoute['method']; path: string; members: Array<RouteMember<O>> }>();
  const sorted = [...ops].sort((a, b) => (specOf(a).name < specOf(b).name ? -1 : 1));
  for (const op of sorted) {
    for (const route of specOf(op).routes) {
      const key = `${route.method} ${route.path}`;
      const g = groups.get(key) ?? { method: route.method, path: route.path, members: [] };
      g.members.push({ op, route });
      groups.set(key, g);
    }
  }
  for (const g of groups.values()) {
    if (g.members.length < 2) continue;
    const names = g.members.map((m) => specOf(m.op).name).join(', ');
    const defaults = g.members.filter((m) => m.route.selectedBy === undefined);
    if (defaults.length > 1) throw new Error(`route ${g.method} ${g.path} is shared by ${names}, and ${defaults.map((m) => specOf(m.op).name).join(' and ')} each take every body: all but one must declare selectedBy`);
    if (new Set(g.members.map((m) => m.route.nodeOnly === true)).size > 1) throw new Error(`route ${g.method} ${g.path} is shared by ${names}, which disagree on nodeOnly`);
  }
  return [...groups.values()];
}

/**
 * The member a shared route stands for where no body is at hand (its owner, its API reference):
 * the one that declares no `selectedBy`, else the first by name.
 */
export function defaultMember<O>(group: OperationRouteGroup<O>): RouteMember<O> {
  return group.members.find((m) => m.route.selectedBy === undefined) ?? group.members[0]!;
}

/**
 * The operation a body submitted to `group`'s route is: the first member (by name) whose
 * `selectedBy` accepts it, else the member that declares none; undefined when neither exists.
 * `body` is the client's body with the path's parameters joined, as the handlers see it.
 */
export function selectOperation<O>(group: OperationRouteGroup<O>, body: unknown): O | undefined {
  if (group.members.length === 1) return group.members[0]!.op;
  const isObject = body !== null && typeof body === 'object' && !Array.isArray(body);
  for (const m of group.members) if (m.route.selectedBy !== undefined && isObject && Value.Check(m.route.selectedBy, body)) return m.op;
  return group.members.find((m) => m.route.selectedBy === undefined)?.op;
}

/**
 * What a group's route declares in the route table (RouteOptions): the operation it stands for
 * (`defaultMember`) and every other member with the body schema that selects it, so the API
 * reference lists each operation of the build once.
 */
export function groupRouteOperations<O extends { readonly spec: OperationSpec<TObject> }>(group: OperationRouteGroup<O>): { operation: OperationSpec<TObject>; sharedWith: Array<{ spec: OperationSpec<TObject>; selectedBy: TObject | undefined }> } {
  const primary = defaultMember(group);
  return {
    operation: primary.op.spec,
    sharedWith: group.members.filter((m) => m !== primary).map((m) => ({ spec: m.op.spec, selectedBy: m.route.selectedBy })),
  };
}
