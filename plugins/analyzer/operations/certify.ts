import { Type } from '@sinclair/typebox';
import { badRequest, defineOperation, isChainError, notFound, type ChainError, type ReadContext, type TxContext } from '../../../kernel/sdk.js';
import { contractsMethods, type ContractRecord } from '../../contracts/public.js';
import { operatorProblem } from '../operators.js';
import { certificateCount, certificates, certificatesByContract, certificatesByIssuer, certificatesByOwner, issued, type Certificate } from '../store.js';

export const CERT_ADDRESS = 'chain:system.cert';
export const CERT_GAS = 20;
/** decisions.md §50: a certificate's note. */
export const NOTE_MAX = 280;

export const CertifyBody = Type.Object(
  {
    signer: Type.String({ minLength: 1, maxLength: 128, description: 'the issuing operator: a .node of the active validator set, acting through its owner' }),
    contract: Type.String({ minLength: 1, maxLength: 128, description: 'the certified contract (.app, its address or registered name)' }),
    note: Type.Optional(Type.String({ maxLength: NOTE_MAX, description: 'at most 280 characters' })),
  },
  { additionalProperties: false },
);

type Body = typeof CertifyBody.static;

/** The contract a body names, refused when unknown (404) or already certified by this issuer at its code (400). */
async function subject(ctx: ReadContext, issuer: string, b: Body): Promise<ContractRecord | ChainError> {
  const c = await ctx.methods.of(contractsMethods).contract(b.contract);
  if (!c) return notFound(`no contract at ${b.contract}`);
  const again = await issued.get(ctx.store, issuer, c.record.address, c.record.code_hash);
  if (again) return badRequest(`${issuer} has already certified ${c.record.address} at code ${c.record.code_hash} (certificate ${again.id})`);
  return c.record;
}

function write(ctx: TxContext, cert: Certificate): void {
  certificates.set(ctx.store, cert.id, cert);
  certificateCount.set(ctx.store, cert.id);
  certificatesByContract.set(ctx.store, cert.contract, cert.id, {});
  certificatesByOwner.set(ctx.store, cert.owner, cert.id, {});
  certificatesByIssuer.set(ctx.store, cert.issuer, cert.id, {});
  issued.set(ctx.store, cert.issuer, cert.contract, cert.code_hash, { id: cert.id });
}

/**
 * `POST /api/v1/contracts/certify` (decisions.md §50): one analyzer operator's certificate of a
 * contract as it is at that height (its owner, code hash and scores copied into the record).
 * An issuer certifies a contract once per code hash.
 */
export const certifyOperation = defineOperation({
  name: 'certify',
  description: 'an analyzer operator certifies a contract (decisions.md §50)',
  routes: [{ method: 'POST', path: '/api/v1/contracts/certify' }],
  schema: CertifyBody,
  actor: 'signer',
  signsFor: CERT_ADDRESS,
  value: null,
  gas: CERT_GAS,
  mainKeyOnly: 'certify as an analyzer operator',
  socketMethod: 'certify_contract',
  async check(ctx, op) {
    const refused = await operatorProblem(ctx, op.actor);
    if (refused) return refused;
    const s = await subject(ctx, op.actor, op.body);
    return isChainError(s) ? s : undefined;
  },
  // The kernel ran check on the block's state just before (a proposer may have skipped admission).
  async execute(ctx, op) {
    const c = await subject(ctx, op.actor, op.body);
    if (isChainError(c)) throw c;
    const id = ((await certificateCount.get(ctx.store)) ?? 0) + 1;
    write(ctx, {
      id,
      contract: c.address,
      owner: c.owner,
      issuer: op.actor,
      code_hash: c.code_hash,
      security_score: c.security_score ?? null,
      risk_score: c.risk_score ?? null,
      model: c.model ?? null,
      note: op.body.note ?? '',
      height: ctx.block.height,
      tx_hash: op.txHash,
    });
  },
});
