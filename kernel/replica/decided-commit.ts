import type { DecidedCommit } from '../model/types.js';
import { utf8Bytes } from '../codec/utf8.js';
import { certificateToJson, type CommitCertificate } from '../consensus/index.js';

/** A decided block's certificate as the store keeps it (the consensus wire form) with its signers. */
export function decidedCommit(cert: CommitCertificate): DecidedCommit {
  return { bytes: utf8Bytes(JSON.stringify(certificateToJson(cert))), signers: cert.precommits.map((p) => p.vote.validator) };
}
