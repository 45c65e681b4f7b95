import type { SignatureProvider } from '../crypto/provider.js';
import { bytesEqual, compareAddresses } from './bytes.js';
import { HASH_BYTES, verifyVoteSignature } from './encoding.js';
import type { CommitCertificate, VerifyResult } from './types.js';
import type { ValidatorSet } from './validator-set.js';

/**
 * Verifies a commit certificate against the validator set of its height (catch-up, light
 * clients). Every precommit must be for exactly (height, round, blockHash), from a distinct
 * member, in canonical order, with a valid signature; together they must hold strictly more
 * than 2/3 of the power. Extra valid precommits are allowed; one bad signature rejects the whole
 * certificate, so a node never stores or forwards a certificate carrying forged votes.
 */
export function verifyCommit(cert: CommitCertificate, validators: ValidatorSet, chainId: string, provider: SignatureProvider): VerifyResult {
  if (cert.blockHash.length !== HASH_BYTES) return { ok: false, reason: 'block hash must be 32 bytes' };
  let power = 0n;
  let previous: string | undefined;
  for (const sv of cert.precommits) {
    const v = sv.vote;
    if (v.type !== 'precommit') return { ok: false, reason: 'certificate contains a non-precommit vote' };
    if (v.height !== cert.height || v.round !== cert.round) return { ok: false, reason: 'precommit for another height or round' };
    if (v.blockHash === null || !bytesEqual(v.blockHash, cert.blockHash)) return { ok: false, reason: 'precommit for another block' };
    if (previous !== undefined && compareAddresses(previous, v.validator) >= 0) {
      return { ok: false, reason: 'precommits not sorted by validator or duplicated' };
    }
    previous = v.validator;
    const publicKey = validators.publicKeyOf(v.validator);
    if (publicKey === undefined) return { ok: false, reason: `unknown validator ${v.validator}` };
    if (!verifyVoteSignature(provider, chainId, sv, publicKey)) return { ok: false, reason: `bad signature from ${v.validator}` };
    power += validators.votingPower(v.validator);
  }
  if (!validators.hasTwoThirds(power)) return { ok: false, reason: 'precommits hold no more than 2/3 of the voting power' };
  return { ok: true };
}
