/**
 * Every error a client can see. Each carries the HTTP status the interface spec names and the
 * message it is answered with, so a handler throws and the RPC layer never guesses a status.
 */
export class ChainError extends Error {
  readonly status: number;
  readonly hint: string | undefined;
  readonly extra: Record<string, unknown> | undefined;

  constructor(status: number, message: string, hint?: string, extra?: Record<string, unknown>) {
    super(message);
    this.name = 'ChainError';
    this.status = status;
    this.hint = hint;
    this.extra = extra;
  }

  toJSON(): Record<string, unknown> {
    return { ...(this.extra ?? {}), error: this.message, ...(this.hint !== undefined ? { hint: this.hint } : {}) };
  }
}

export const badRequest = (message: string, hint?: string): ChainError => new ChainError(400, message, hint);
export const unauthorized = (message: string, hint?: string): ChainError => new ChainError(401, message, hint);
export const forbidden = (message: string, hint?: string): ChainError => new ChainError(403, message, hint);
export const notFound = (message: string, hint?: string): ChainError => new ChainError(404, message, hint);
export const conflict = (message: string, hint?: string): ChainError => new ChainError(409, message, hint);
export const payloadTooLarge = (message: string): ChainError => new ChainError(413, message);
export const tooManyRequests = (message: string): ChainError => new ChainError(429, message);
export const unavailable = (message: string, hint?: string): ChainError => new ChainError(503, message, hint);

export function isChainError(e: unknown): e is ChainError {
  return e instanceof ChainError;
}

/**
 * A transaction handler that fails after metered work (a contract that traps or runs out of fuel)
 * throws this to be charged the gas it used, not only the base: its writes roll back as for any
 * throw, and the gas charged lies between the base gas and the transaction's gas limit.
 */
export class FailedWithGas extends Error {
  constructor(message: string, readonly gas: number) {
    super(message);
    this.name = 'FailedWithGas';
  }
}

/**
 * A node-local failure that says nothing about the transaction (memory or address space the host
 * could not allocate, a worker thread that died, a store read that failed): another node would
 * not meet it at the same point. A handler throws it instead of failing the transaction, and the
 * executor lets it stop the whole block: the node records no outcome that another node would not,
 * and decides the block again later (a validator refuses to vote for a block it cannot execute).
 */
export class NodeFault extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NodeFault';
  }
}
