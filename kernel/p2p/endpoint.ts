import { isNodeId } from '../crypto/node-id.js';
import { formatAddress, parseAddress } from './tcp/wire.js';

/** A P2P peer address (decisions.md §83): `<host>:<port>`, optionally pinned to a node id. */
export interface PeerEndpoint {
  /** The id the peer's key must have; undefined when the entry names none. */
  readonly nodeId: string | undefined;
  readonly host: string;
  readonly port: number;
  /** `<host>:<port>` to dial. */
  readonly address: string;
}

/** `<host>:<port>` or `<node_id>@<host>:<port>`; null for anything else. */
export function parsePeerEndpoint(text: string): PeerEndpoint | null {
  const at = text.indexOf('@');
  const nodeId = at < 0 ? undefined : text.slice(0, at);
  if (nodeId !== undefined && !isNodeId(nodeId)) return null;
  const parsed = parseAddress(at < 0 ? text : text.slice(at + 1));
  if (parsed === null) return null;
  return { nodeId, host: parsed.host, port: parsed.port, address: formatAddress(parsed.host, parsed.port) };
}

/** `<node_id>@<host>:<port>`: a validator's `p2p_endpoint`. */
export function formatPeerEndpoint(nodeId: string, hostPort: string): string {
  return `${nodeId}@${hostPort}`;
}
