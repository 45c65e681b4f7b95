import { Type } from '@sinclair/typebox';
import { AddressString, countedPage, defineRoute, listPage, notFound, pageAnswer, pageQuery, toPage, type ReadContext } from '../../kernel/sdk.js';
import { contractsMethods } from '../contracts/public.js';
import { CertificateRecord, certificateCount, certificates, certificatesByContract, certificatesByIssuer, certificatesByOwner, type Certificate } from './store.js';

const Address = (description: string) => Type.Optional({ ...AddressString, description });

export const certificatesRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/certificates',
  summary: 'certificates, newest first (decisions.md §50)',
  query: pageQuery({ default: 20, cap: 100 }, { owner: Address("the contract's owner"), contract: Address('the certified contract (.app)'), issuer: Address('the operator who certified it (.node)') }),
  responses: { 200: pageAnswer('certificates', CertificateRecord) },
  socketMethod: 'get_certificates',
});

export const certificateRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/certificates/:id',
  summary: 'one certificate (decisions.md §50)',
  params: Type.Object({ id: Type.Integer({ minimum: 1, maximum: 999_999_999_999, description: 'the certificate id' }) }),
  responses: { 200: CertificateRecord, 404: 'no certificate of that id' },
  proves: (req) => [certificates.stateKey(req.params.id)],
  socketMethod: 'get_certificate',
});

export const contractCertificateRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/certificates/contract/:address',
  summary: "a contract's newest certificate (decisions.md §50)",
  params: Type.Object({ address: { ...AddressString, description: 'the contract (.app, its address or registered name)' } }),
  responses: { 200: CertificateRecord, 404: 'the contract has no certificate' },
  // decisions.md §84: the certificate's record (which one is newest is read from the contract's index, not proven).
  proves: (_req, answer) => (typeof answer.id === 'number' ? [certificates.stateKey(answer.id)] : []),
  socketMethod: 'get_contract_certificate',
});

export const CERTIFICATE_ROUTES = [certificatesRoute, certificateRoute, contractCertificateRoute] as const;

/** A contract as a filter or path names it: a registered `.app` name stands for its contract (§42). */
async function contractAddress(ctx: ReadContext, named: string): Promise<string> {
  return (await ctx.methods.of(contractsMethods).contract(named))?.record.address ?? named;
}

async function byIds(ctx: ReadContext, ids: readonly number[]): Promise<Certificate[]> {
  const out: Certificate[] = [];
  for (const id of ids) {
    const c = await certificates.get(ctx.store, id);
    if (c) out.push(c);
  }
  return out;
}

/**
 * §50's list, newest first. Unfiltered, one page is read (the count record holds the total);
 * filtered, the narrowest index named (contract, then issuer, then owner) gives the ids and the
 * other filters are applied to the records.
 */
export interface CertificateQuery {
  readonly owner?: string;
  readonly contract?: string;
  readonly issuer?: string;
  readonly limit?: number;
  readonly offset?: number;
  readonly page?: number;
}

export async function certificateList(ctx: ReadContext, q: CertificateQuery): Promise<Record<string, unknown>> {
  const { limit, offset } = toPage(q);
  if (q.contract === undefined && q.issuer === undefined && q.owner === undefined) {
    const total = (await certificateCount.get(ctx.store)) ?? 0;
    const rows = offset >= total ? [] : (await certificates.scan(ctx.store, { reverse: true, limit: offset + limit })).slice(offset);
    return countedPage('certificates', rows.map((r) => r.value), total, limit, offset);
  }
  const contract = q.contract === undefined ? undefined : await contractAddress(ctx, q.contract);
  const ids = contract !== undefined
    ? (await certificatesByContract.scan(ctx.store, { prefix: [contract], reverse: true })).map((r) => r.key[1])
    : q.issuer !== undefined
      ? (await certificatesByIssuer.scan(ctx.store, { prefix: [q.issuer], reverse: true })).map((r) => r.key[1])
      : (await certificatesByOwner.scan(ctx.store, { prefix: [q.owner!], reverse: true })).map((r) => r.key[1]);
  const all = (await byIds(ctx, ids)).filter((c) => (q.issuer === undefined || c.issuer === q.issuer) && (q.owner === undefined || c.owner === q.owner));
  return listPage('certificates', all, limit, offset);
}

export async function certificateView(ctx: ReadContext, id: number): Promise<Certificate> {
  const c = await certificates.get(ctx.store, id);
  if (!c) throw notFound(`no certificate ${id}`);
  return c;
}

export async function contractCertificate(ctx: ReadContext, named: string): Promise<Certificate> {
  const address = await contractAddress(ctx, named);
  const [newest] = await certificatesByContract.scan(ctx.store, { prefix: [address], reverse: true, limit: 1 });
  const c = newest === undefined ? undefined : await certificates.get(ctx.store, newest.key[1]);
  if (!c) throw notFound(`no certificate of ${named}`);
  return c;
}
