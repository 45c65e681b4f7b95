/**
 * The REST routes a node serves, collected from the kernel and from every plugin's `routes` tap
 * before the HTTP server starts. Kept independent of the server backend so a plugin never sees
 * whether uWebSockets.js or node:http answers.
 */
import type { TObject, TSchema } from '@sinclair/typebox';
import type { ChainError } from '../errors.js';
import type { OperationSpec } from '../ops/operation.js';
import type { DeclaredRoute, RequestFor } from './declared-route.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RpcRequest {
  readonly method: string;
  readonly path: string;
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
  /** The text `body` was parsed from, when the request had one. */
  readonly bodyText?: string | undefined;
  readonly ip: string;
}

export type RpcHandler = (req: RpcRequest) => unknown;

/**
 * How a single-record read proves its answer (decisions.md §84): the state keys (full keys,
 * `<namespace>/<key>`; `accountStateKey(address)` for an account) the answer is read from. With
 * `?prove=true` the kernel runs the handler on the state of the height it proves, attaches
 * `proof` with one entry per key, and refuses to serve a declaration the handler did not read.
 */
export interface ProvenRead {
  /**
   * The keys, from the request and the answer the handler gave (a read through a name proves the
   * record of the address it resolved to: the answer's `address`).
   */
  readonly keys: (req: RpcRequest, answer: Readonly<Record<string, unknown>>) => readonly string[];
}

/** An operation admitted through a route it shares, and the bodies that select it. */
export interface SharedOperation {
  readonly spec: OperationSpec<TObject>;
  readonly selectedBy: TObject | undefined;
}

export interface RouteOptions {
  /** Declares the route a proven read: it takes `prove` (true/false) and proves these keys. */
  readonly proves?: ProvenRead['keys'];
  /** The signed operation (decisions.md §16) this route admits: its body schema and signing facts describe the route. */
  readonly operation?: OperationSpec<TObject>;
  /**
   * The other operations a shared route admits (`POST /api/v1/nodes/register` registers a `.node`,
   * an `.app` or a `.vault` name), each with the body schema that selects it
   * (`OperationRoute.selectedBy`): listed in the API reference beside `operation`, so a client
   * reading it learns every operation of the build.
   */
  readonly sharedWith?: readonly SharedOperation[];
  /**
   * false for a route that only says the path does not exist in this process (the gateway's 404 for
   * a Node only operation route, kept so the answer is 404 rather than 405): left out of the API reference.
   */
  readonly listed?: boolean;
  /**
   * The route's tag in the API reference where it is not its owner (decisions.md §87: the owning
   * plugin, `kernel` or `gateway`): the gateway tags a route it forwards, or answers in a node's
   * place, with the plugin or `kernel` that serves it on a node, so both documents tag it alike.
   */
  readonly tag?: string;
}

export interface RouteEntry {
  readonly method: HttpMethod;
  readonly path: string;
  readonly handler: RpcHandler;
  readonly owner: string;
  readonly proven?: ProvenRead;
  /** The route's declaration (`serve`): its schemas and answers, for the metadata route and the API reference. */
  readonly declared?: DeclaredRoute;
  /** The operation the route admits (operation routes, served by the kernel and forwarded by the gateway). */
  readonly operation?: OperationSpec<TObject>;
  /** The other operations admitted through the route (RouteOptions.sharedWith). */
  readonly sharedWith?: readonly SharedOperation[];
  /** false: not part of this process's API (RouteOptions.listed). */
  readonly listed?: boolean;
  /** The API reference's tag where it is not `owner` (RouteOptions.tag). */
  readonly tag?: string;
}

/**
 * When a declared route refuses before its request is validated (a test-network route on mainnet:
 * 403; a missing access token: 401, from the raw request's headers).
 */
export interface ServeOptions {
  readonly refuse?: (raw: RpcRequest) => ChainError | undefined;
  /** The API reference's tag where it is not the owner (RouteOptions.tag). */
  readonly tag?: string;
}

export class RouteTable {
  private readonly entries: RouteEntry[] = [];
  private owner = 'kernel';

  /** The host sets the owner while a plugin's `routes` tap runs, for conflict messages. */
  withOwner<T>(owner: string, fn: () => T): T {
    const prev = this.owner;
    this.owner = owner;
    try {
      return fn();
    } finally {
      this.owner = prev;
    }
  }

  add(method: HttpMethod, path: string, handler: RpcHandler, options: RouteOptions = {}): void {
    this.push(method, path, handler, options, undefined);
  }

  /**
   * Serves a declared route (`defineRoute`): the request is validated against its schemas (400
   * naming the field) and the handler gets it typed; a route that `proves` is a proven read.
   */
  serve<P extends TObject | undefined, Q extends TObject | undefined, B extends TSchema | undefined>(route: DeclaredRoute<P, Q, B>, handler: (req: RequestFor<P, Q, B>) => unknown, options: ServeOptions = {}): void {
    const refuse = options.refuse;
    const run: RpcHandler = (raw) => {
      const refused = refuse?.(raw);
      if (refused) throw refused;
      return handler(route.parse(raw));
    };
    const proves = route.proves;
    this.push(route.method, route.path, run, { ...(proves ? { proves: (raw: RpcRequest, answer: Readonly<Record<string, unknown>>) => proves(route.parse(raw) as never, answer as never) } : {}), ...(options.tag !== undefined ? { tag: options.tag } : {}) }, route as unknown as DeclaredRoute);
  }

  private push(method: HttpMethod, path: string, handler: RpcHandler, options: RouteOptions, declared: DeclaredRoute | undefined): void {
    const clash = this.entries.find((e) => e.method === method && e.path === path);
    if (clash) throw new Error(`route ${method} ${path} is registered by both ${clash.owner} and ${this.owner}`);
    if (options.proves && method !== 'GET') throw new Error(`route ${method} ${path}: only a GET can be a proven read`);
    this.entries.push({
      method,
      path,
      handler,
      owner: this.owner,
      ...(options.proves ? { proven: { keys: options.proves } } : {}),
      ...(declared ? { declared } : {}),
      ...(options.operation ? { operation: options.operation } : {}),
      ...(options.sharedWith && options.sharedWith.length > 0 ? { sharedWith: options.sharedWith } : {}),
      ...(options.listed === false ? { listed: false } : {}),
      ...(options.tag !== undefined && options.tag !== this.owner ? { tag: options.tag } : {}),
    });
  }

  get(path: string, handler: RpcHandler, options: RouteOptions = {}): void {
    this.add('GET', path, handler, options);
  }

  post(path: string, handler: RpcHandler): void {
    this.add('POST', path, handler);
  }

  has(method: HttpMethod, path: string): boolean {
    return this.entries.some((e) => e.method === method && e.path === path);
  }

  list(): readonly RouteEntry[] {
    return this.entries;
  }
}
