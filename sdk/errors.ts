export { LightClientError, isLightClientError, type LightClientCheck } from '../kernel/light-client/errors.js';

/** What an SdkError is about: a bad key or input, an operation the node does not describe, a socket, or a wait that ran out. */
export type SdkErrorKind = 'key' | 'input' | 'operation' | 'socket' | 'timeout';

/** A refusal of the SDK itself, before or without any node answer. */
export class SdkError extends Error {
  readonly kind: SdkErrorKind;

  constructor(kind: SdkErrorKind, message: string) {
    super(message);
    this.name = 'SdkError';
    this.kind = kind;
  }
}

/**
 * A node or gateway answered a status other than 200: `status` and the server's `error` message
 * (part 2, Errors), `body` as it came.
 */
export class ChainHttpError extends Error {
  readonly status: number;
  readonly body: unknown;

  constructor(method: string, path: string, status: number, body: unknown) {
    const message = typeof body === 'object' && body !== null && typeof (body as { error?: unknown }).error === 'string' ? (body as { error: string }).error : JSON.stringify(body);
    super(`${method} ${path} answered ${status}: ${message}`);
    this.name = 'ChainHttpError';
    this.status = status;
    this.body = body;
  }
}
