/**
 * Failures of the tree's storage, kept apart from ChainError: they are node faults (a root whose
 * batch was never written, a damaged database), not client mistakes, and must never be answered
 * as a 4xx or turned into "key absent".
 */
export class MissingNodeError extends Error {
  readonly hash: string;
  constructor(hashHex: string) {
    super(`state tree node 0x${hashHex} is not in the store (unknown root, or its batch was never written)`);
    this.name = 'MissingNodeError';
    this.hash = hashHex;
  }
}

export class CorruptNodeError extends Error {
  constructor(message: string) {
    super(`state tree: ${message}`);
    this.name = 'CorruptNodeError';
  }
}
