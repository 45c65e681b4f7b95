import { certificateFromJson } from '../consensus/wire.js';

const decoder = new TextDecoder();

/**
 * The validators whose precommit a stored commit certificate carries (the replica hands `finalize`
 * the certificate's JSON bytes). Only for the node-local activity figures, so a certificate that
 * does not decode counts no precommit rather than stopping the commit of a decided block.
 */
export function precommitSigners(commit: Uint8Array | undefined): string[] {
  if (commit === undefined) return [];
  let json: unknown;
  try {
    json = JSON.parse(decoder.decode(commit));
  } catch {
    return [];
  }
  return certificateFromJson(json)?.precommits.map((p) => p.vote.validator) ?? [];
}
