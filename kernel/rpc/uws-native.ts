/**
 * Loading uWebSockets.js, and the slice of its API this server uses.
 *
 * The registry only carries the unofficial `@trufflesuite/uws-js-unofficial` build. Its entry
 * point silently swaps in a pure-JS emulation when the native binary does not load, which would
 * make "backend: uws" a lie; so the binary for this platform and Node ABI is required directly
 * and a failure is reported as "unavailable". The types are declared here rather than imported
 * because the package is an optional dependency and may be absent at compile time too.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export type UwsData = string | ArrayBuffer | Uint8Array;

export interface UwsHttpRequest {
  getHeader(lowerCaseKey: string): string;
  getUrl(): string;
  getMethod(): string;
  /** Undefined (not '') when the URL has no '?'. */
  getQuery(): string | undefined;
  forEach(cb: (key: string, value: string) => void): void;
}

export interface UwsHttpResponse {
  writeStatus(status: string): UwsHttpResponse;
  writeHeader(key: string, value: string): UwsHttpResponse;
  end(body?: UwsData, closeConnection?: boolean): UwsHttpResponse;
  /** Chunked write; false when the data was buffered under backpressure (wait for onWritable). */
  write(chunk: UwsData): boolean;
  onWritable(handler: (offset: number) => boolean): UwsHttpResponse;
  endWithoutBody(reportedContentLength?: number, closeConnection?: boolean): UwsHttpResponse;
  close(): UwsHttpResponse;
  onAborted(handler: () => void): UwsHttpResponse;
  onData(handler: (chunk: ArrayBuffer, isLast: boolean) => void): UwsHttpResponse;
  getRemoteAddressAsText(): ArrayBuffer;
  cork(cb: () => void): UwsHttpResponse;
  upgrade<T>(userData: T, secWebSocketKey: string, secWebSocketProtocol: string, secWebSocketExtensions: string, context: UwsSocketContext): void;
}

/** Opaque native handles. */
export type UwsSocketContext = { readonly __uwsContext: unique symbol };
export type UwsListenSocket = { readonly __uwsListenSocket: unique symbol };

export interface UwsWebSocket<T> {
  send(message: UwsData, isBinary?: boolean, compress?: boolean): number;
  getBufferedAmount(): number;
  end(code?: number, shortMessage?: UwsData): void;
  cork(cb: () => void): UwsWebSocket<T>;
  getUserData(): T;
}

export interface UwsWebSocketBehavior<T> {
  maxPayloadLength?: number;
  idleTimeout?: number;
  maxBackpressure?: number;
  closeOnBackpressureLimit?: boolean;
  sendPingsAutomatically?: boolean;
  compression?: number;
  upgrade?: (res: UwsHttpResponse, req: UwsHttpRequest, context: UwsSocketContext) => void;
  open?: (ws: UwsWebSocket<T>) => void;
  message?: (ws: UwsWebSocket<T>, message: ArrayBuffer, isBinary: boolean) => void;
  close?: (ws: UwsWebSocket<T>, code: number, message: ArrayBuffer) => void;
}

export interface UwsApp {
  listen(host: string, port: number, cb: (listenSocket: UwsListenSocket | false) => void): UwsApp;
  any(pattern: string, handler: (res: UwsHttpResponse, req: UwsHttpRequest) => void): UwsApp;
  ws<T>(pattern: string, behavior: UwsWebSocketBehavior<T>): UwsApp;
  /** Present in the native builds (not in the package's typings): force-closes every socket. */
  close?(): void;
}

export interface UwsModule {
  App(): UwsApp;
  SSLApp(options: { key_file_name: string; cert_file_name: string }): UwsApp;
  us_listen_socket_close(listenSocket: UwsListenSocket): void;
  us_socket_local_port(socket: UwsListenSocket): number;
  DISABLED: number;
}

export const UWS_PACKAGE = '@trufflesuite/uws-js-unofficial';

export type UwsLoad = { readonly ok: true; readonly uws: UwsModule; readonly file: string } | { readonly ok: false; readonly reason: string };

let cached: UwsLoad | undefined;

/** Loads once per process; a native addon cannot be unloaded, so retrying would not help anyway. */
export function loadUws(): UwsLoad {
  cached ??= tryLoad();
  return cached;
}

function tryLoad(): UwsLoad {
  const require = createRequire(import.meta.url);
  let pkgDir: string;
  try {
    pkgDir = dirname(require.resolve(`${UWS_PACKAGE}/package.json`));
  } catch {
    return { ok: false, reason: `${UWS_PACKAGE} is not installed` };
  }
  const file = join(pkgDir, 'binaries', `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`);
  try {
    const mod = require(file) as Partial<UwsModule>;
    if (typeof mod.App !== 'function' || typeof mod.SSLApp !== 'function' || typeof mod.us_listen_socket_close !== 'function') {
      return { ok: false, reason: `${file} does not export the uWebSockets.js API` };
    }
    return { ok: true, uws: mod as UwsModule, file };
  } catch (e: unknown) {
    const msg = e instanceof Error ? e.message.split('\n')[0] : String(e);
    return { ok: false, reason: `no usable binary for ${process.platform}-${process.arch} Node ABI ${process.versions.modules}: ${msg}` };
  }
}
