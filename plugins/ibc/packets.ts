import { sha256 } from '@noble/hashes/sha2.js';
import { toHex } from '../../kernel/sdk.js';

/*
 * The packet texts of part 1 "Inter-chain transfers" and decisions.md §68, and the denoms they
 * credit: built here once for the sender, the receiver's rebuild and the tests.
 */

export const ICS20_TAG = 'ch-ics20-v1';
export const ATTEST_TAG = 'ch-ibc-attest-v1';

export interface TransferFields {
  readonly denom: string;
  readonly amount: bigint;
  readonly sender: string;
  readonly receiver: string;
  readonly channel: string;
  readonly memo: string;
}

export interface AttestFields {
  readonly bytecode_hash: string;
  readonly score: number;
  readonly model: string;
  readonly timestamp: number;
  readonly subject: string;
}

export function transferText(p: TransferFields): string {
  return `${ICS20_TAG}|${p.denom}|${p.amount}|${p.sender}|${p.receiver}|${p.channel}|${p.memo}`;
}

export function attestText(p: AttestFields): string {
  return `${ATTEST_TAG}|${p.bytecode_hash}|${p.score}|${p.model}|${p.timestamp}|${p.subject}`;
}

/** §66: a commitment's (and a receipt's) value. */
export function commitmentValue(timeoutHeight: number, text: string): string {
  return `${timeoutHeight}|${text}`;
}

/** §68 packet id. */
export function packetId(sourceChain: string, channel: string, sequence: number): string {
  return `${sourceChain}/${channel}/${sequence}`;
}

const ID_RE = /^([a-z0-9-]{1,64})\/([a-z0-9-]{1,32})\/([1-9][0-9]{0,15})$/;

/** A packet id's parts, or undefined when it is not `<chain>/<channel>/<sequence>`. */
export function parsePacketId(id: string): { sourceChain: string; channel: string; sequence: number } | undefined {
  const m = ID_RE.exec(id);
  if (!m || !Number.isSafeInteger(Number(m[3]))) return undefined;
  return { sourceChain: m[1]!, channel: m[2]!, sequence: Number(m[3]) };
}

/** The trace prefix of a coin that crossed `channel`. */
export const tracePrefix = (channel: string): string => `transfer/${channel}/`;

/** §68: a voucher's denom, `ibc/` + lowercase hex SHA-256 of its trace. */
export function voucherDenom(trace: string): string {
  return `ibc/${voucherHash(trace)}`;
}

export function voucherHash(trace: string): string {
  return toHex(sha256(new TextEncoder().encode(trace)));
}

const VOUCHER_RE = /^ibc\/([0-9a-f]{64})$/;

/** The hex of a voucher denom `ibc/<hex>`, or undefined. */
export function voucherHashOf(denom: string): string | undefined {
  return VOUCHER_RE.exec(denom)?.[1];
}

/** `chain:ibc.escrow.<channel>` (part 1, Address kinds). */
export const escrowAddress = (channel: string): string => `chain:ibc.escrow.${channel}`;
