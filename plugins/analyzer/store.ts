import { Type } from '@sinclair/typebox';
import { defineStore, keyPart } from '../../kernel/sdk.js';

/**
 * The analyzer's state layout (namespace `analyzer/`): the trusted list of bytecode hashes and
 * its pending approvals (decisions.md §49), the pending score approvals of contracts, and the
 * certificates (§50) with the indexes their lists read. Nothing is written at genesis.
 */
export const PLUGIN = 'analyzer';

export const HASH_RE = /^0x[0-9a-f]{64}$/;

export const WhitelistRecord = Type.Object({
  bytecode_hash: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('trusted'), Type.Literal('removed')]),
  /** The action the approvals are for: trusting the hash (status pending or removed) or removing it (status trusted). */
  action: Type.Union([Type.Literal('trust'), Type.Literal('remove')]),
  approvals: Type.Array(Type.String()),
  trusted_height: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
});

export type WhitelistEntry = typeof WhitelistRecord.static;

export const whitelist = defineStore(PLUGIN, {
  name: 'whitelist',
  description: 'a bytecode hash on the trusted list or awaiting approvals (§49), with the approvals of its pending action',
  key: ['whitelist', keyPart.hash('bytecode_hash')],
  value: WhitelistRecord,
});

export const ScoreApprovals = Type.Object({
  address: Type.String(),
  security_score: Type.Integer({ minimum: 0, maximum: 100 }),
  approvals: Type.Array(Type.String()),
});

export const scoreApprovals = defineStore(PLUGIN, {
  name: 'scoreApprovals',
  description: 'approvals of one contract score (§49): that address with that score, until applied',
  key: ['score', keyPart.address('address'), keyPart.integer('security_score', { width: 3 })],
  value: ScoreApprovals,
});

export const CertificateRecord = Type.Object({
  id: Type.Integer({ minimum: 1 }),
  contract: Type.String(),
  owner: Type.String(),
  issuer: Type.String(),
  code_hash: Type.String(),
  security_score: Type.Union([Type.Integer(), Type.Null()]),
  risk_score: Type.Union([Type.Integer(), Type.Null()]),
  model: Type.Union([Type.String(), Type.Null()]),
  note: Type.String(),
  height: Type.Integer({ minimum: 0 }),
  tx_hash: Type.String(),
});

export type Certificate = typeof CertificateRecord.static;

const certId = keyPart.integer('id', { width: 12 });

export const certificates = defineStore(PLUGIN, { name: 'certificates', description: 'a certificate (§50), by id', key: ['cert', certId], value: CertificateRecord });

export const certificateCount = defineStore(PLUGIN, { name: 'certificateCount', description: 'how many certificates were applied (the next id is one more)', key: ['cert-count'], value: Type.Integer({ minimum: 0 }) });

export const certificatesByContract = defineStore(PLUGIN, {
  name: 'certificatesByContract',
  description: "a contract's certificates by id (its newest, the list's contract filter)",
  key: ['cert-contract', keyPart.address('contract'), certId],
  value: Type.Object({}),
});

export const certificatesByOwner = defineStore(PLUGIN, {
  name: 'certificatesByOwner',
  description: "certificates of a contract owner's contracts by id (the list's owner filter)",
  key: ['cert-owner', keyPart.address('owner'), certId],
  value: Type.Object({}),
});

export const certificatesByIssuer = defineStore(PLUGIN, {
  name: 'certificatesByIssuer',
  description: "an issuer's certificates by id (the list's issuer filter)",
  key: ['cert-issuer', keyPart.address('issuer'), certId],
  value: Type.Object({}),
});

/** One certificate per issuer, contract and code hash (§50: again is 400). */
export const issued = defineStore(PLUGIN, {
  name: 'issued',
  description: 'that an issuer certified a contract with that code hash',
  key: ['cert-issued', keyPart.address('issuer'), keyPart.address('contract'), keyPart.hash('code_hash')],
  value: Type.Object({ id: Type.Integer({ minimum: 1 }) }),
});

export const ALL_STORES = [whitelist, scoreApprovals, certificates, certificateCount, certificatesByContract, certificatesByOwner, certificatesByIssuer, issued];
