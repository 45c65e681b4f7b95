/**
 * Client addresses in one spelling whichever backend produced them: node reports
 * '::ffff:127.0.0.1' on dual-stack sockets and uWS reports fully expanded IPv6 text, and the
 * rate limiter keys on this string, so both must become '127.0.0.1' / '::1'.
 */
import { BlockList, isIP } from 'node:net';

// RFC 5952 form of an IPv4-mapped address once the URL parser has canonicalised it.
const V4_MAPPED_HEX = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/;

export function normalizeIp(raw: string): string {
  const ip = raw.trim();
  if (ip.toLowerCase().startsWith('::ffff:') && isIP(ip.slice(7)) === 4) return ip.slice(7);
  if (isIP(ip) !== 6) return ip;
  // The WHATWG URL parser prints IPv6 in RFC 5952 canonical form (compressed, lower-case, and
  // any embedded dotted quad rewritten as hex).
  const canonical = new URL(`http://[${ip}]/`).hostname.slice(1, -1);
  const mapped = V4_MAPPED_HEX.exec(canonical);
  if (mapped === null) return canonical;
  const hi = parseInt(mapped[1] as string, 16);
  const lo = parseInt(mapped[2] as string, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/**
 * The socket peer, or with `trustProxy` the X-Forwarded-For entry that many hops from the right:
 * entries left of it were written by whoever sent the request and prove nothing.
 */
export function clientIp(socketIp: string, forwardedFor: string | undefined, trustProxy: boolean | number | undefined): string {
  const hops = trustProxy === true ? 1 : typeof trustProxy === 'number' ? trustProxy : 0;
  if (hops > 0 && forwardedFor !== undefined) {
    const chain = forwardedFor
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0);
    const picked = chain[Math.max(0, chain.length - hops)];
    if (picked !== undefined && isIP(picked) !== 0) return normalizeIp(picked);
  }
  return normalizeIp(socketIp);
}

/** One entry of an address list: an IP, or a CIDR range `address/prefix`. */
export interface AddressRange {
  readonly address: string;
  readonly prefix: number;
  readonly family: 'ipv4' | 'ipv6';
}

/** `10.0.0.5`, `10.0.0.0/8`, `fd00::/8`, `::1`; undefined for anything else (a prefix too long for its family included). */
export function parseAddressRange(entry: string): AddressRange | undefined {
  const [rawAddress = '', rawPrefix, ...rest] = entry.trim().split('/');
  if (rest.length > 0) return undefined;
  // Written as the socket reports it (an IPv4-mapped IPv6 becomes IPv4), so a rule matches the
  // spelling clientIp() produces.
  const address = isIP(rawAddress) === 0 ? rawAddress : normalizeIp(rawAddress);
  const version = isIP(address);
  if (version === 0) return undefined;
  const bits = version === 4 ? 32 : 128;
  if (rawPrefix !== undefined && !/^\d{1,3}$/.test(rawPrefix)) return undefined;
  const prefix = rawPrefix === undefined ? bits : Number(rawPrefix);
  if (prefix > bits) return undefined;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** Whether a client IP (as clientIp() spells it) falls in any of `entries`; a bad entry throws a RangeError naming `setting` and the entry. */
export function addressMatcher(setting: string, entries: readonly string[]): (ip: string) => boolean {
  // The usual case (no exemptions) asked per request: BlockList.check builds a SocketAddress each time.
  if (entries.length === 0) return () => false;
  const list = new BlockList();
  for (const entry of entries) {
    const range = parseAddressRange(entry);
    if (range === undefined) throw new RangeError(`${setting}: "${entry}" is not an IP address or CIDR range`);
    list.addSubnet(range.address, range.prefix, range.family);
  }
  return (ip) => {
    const version = isIP(ip);
    return version !== 0 && list.check(ip, version === 4 ? 'ipv4' : 'ipv6');
  };
}
