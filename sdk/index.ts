/**
 * The client SDK of pq-chain (Node entry). Everything but `keyFromFile` and the `ws` socket default
 * also runs in a browser; the browser crypto module (`./crypto.ts`, decisions.md §86) is its
 * bundled subset.
 */
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';
import { ChainClient, type ClientOptions } from './client.js';
import { keyFromKeyFile, type ChainKey } from './keys.js';
import type { SocketFactory } from './subscribe.js';

export { ChainClient, type ClientOptions, type SendOptions, type Submitted } from './client.js';
export { addressOf, generatePhrase, keyFromKeyFile, keyFromPhrase, keyFromSeed, randomKey, type ChainKey } from './keys.js';
export { OperationNonces, signOperation, signTransfer, type OperationInput, type TransferInput, type Ucoin } from './signing.js';
export { fetchOperations, pathOf, targetOf, type OperationMeta } from './operations.js';
export { ProvenReader, fetchGenesis, type ProvenAnswer, type ProvenReaderOptions } from './proven.js';
export { Subscription, type BalanceUpdate, type ChainEvent, type SocketFactory, type SocketLike, type SubscribeOptions } from './subscribe.js';
export { ChainHttpError, LightClientError, SdkError, isLightClientError, type LightClientCheck, type SdkErrorKind } from './errors.js';
export { Http, type FetchLike } from './http.js';
export { SDK_VERSION } from './version.js';

/** `ws` for Node 20, which has no global WebSocket. */
export const nodeSocket: SocketFactory = (url) => new WebSocket(url) as never;

/** A client whose `/ws` goes through `ws` unless told otherwise. */
export function connect(options: ClientOptions): ChainClient {
  return new ChainClient({ socket: nodeSocket, ...options });
}

/** The key of a key file (`chain keys generate --out`, decisions.md §13). */
export function keyFromFile(path: string): ChainKey {
  return keyFromKeyFile(readFileSync(path, 'utf8'));
}
