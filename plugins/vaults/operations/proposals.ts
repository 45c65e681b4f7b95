import { Type, type Static } from '@sinclair/typebox';
import { badRequest, defineOperation, notFound, type ChainError, type OperationInput, type ReadContext, type TxContext } from '../../../kernel/sdk.js';
import { proposals } from '../store.js';
import { executeProposal, executionProblem, memberProblem, openProposal, proposalProblem, reaches, vaultOr404, type Proposal, type VaultConfig } from '../proposals.js';
import { proposalCreated, proposalSigned } from '../events.js';

/**
 * The vault operations (decisions.md §44). Each signs for the vault (`:vault` of the path, which
 * every layout covers as the target): `ch-tx-v2|<proposer, requester or signer>|<vault>|<amount
 * for a payout, else 0>|<nonce>`. Fees are the signing member's (§43); the vault pays payouts only.
 * Every rule is `check`ed at admission and again in the block before `execute`.
 */
const VAULT = Type.String({ description: 'the vault address (the path\'s :vault)' });

type Change = Pick<Proposal, 'kind' | 'description' | 'to' | 'amount' | 'member' | 'new_threshold'>;

/** Creating a proposal: the vault, the member, the proposal's own rules, and execution when it alone reaches the threshold. */
async function checkCreate(ctx: ReadContext, vault: string, actor: string, role: string, change: Change): Promise<ChainError | undefined> {
  const cfg = await vaultOr404(ctx, vault);
  if (!('members' in cfg)) return cfg;
  const notMember = memberProblem(cfg, vault, actor, role);
  if (notMember) return notMember;
  const refused = await proposalProblem(ctx, vault, cfg, change);
  if (refused) return refused;
  const draft: Proposal = { ...change, proposer: actor, signatures: [actor], status: 'open', created_height: 0, expires_height: 0, executed_height: null, tx_hash: '' };
  return reaches(cfg, draft.signatures) ? executionProblem(ctx, vault, cfg, draft) : undefined;
}

async function create(ctx: TxContext, vault: string, actor: string, change: Change, txHash: string): Promise<void> {
  const cfg = (await vaultOr404(ctx, vault)) as VaultConfig;
  const { id, proposal, cfg: next } = await openProposal(ctx, vault, cfg, { ...change, proposer: actor }, txHash);
  proposalCreated.emit(ctx, { vault, proposal_id: id, kind: change.kind, proposer: actor, tx_hash: txHash });
  if (reaches(next, proposal.signatures)) await executeProposal(ctx, vault, next, id, proposal, txHash);
}

const none = { description: '', to: '', amount: 0n, member: '', new_threshold: 0 };

/** decisions.md §44: the confirmed creating transaction carries `proposal_id`. */
const viewFields = [{ field: 'proposal_id', event: proposalCreated.type }];

export const createPayout = defineOperation({
  name: 'create_vault_proposal',
  viewFields,
  description: 'proposes a payout from a vault (counts as the proposer\'s signature)',
  routes: [{ method: 'POST', path: '/api/v1/vault/:vault/proposals' }],
  socketMethod: 'create_vault_proposal',
  schema: Type.Object(
    { vault: VAULT, proposer: Type.String(), to: Type.String(), amount: Type.Integer({ minimum: 1, description: 'ucoin, a positive integer' }), description: Type.Optional(Type.String({ maxLength: 500 })) },
    { additionalProperties: false },
  ),
  signsFor: { field: 'vault' },
  actor: 'proposer',
  value: 'amount',
  // The vault pays the amount, not the proposer (decisions.md §43).
  debits: () => 0n,
  gas: 60,
  check: (ctx, op) => checkCreate(ctx, op.body.vault, op.actor, 'proposer', { ...none, kind: 'payout', description: op.body.description ?? '', to: op.body.to, amount: BigInt(op.body.amount) }),
  // Out of the vault when the proposer's signature alone reaches the threshold: judged by the sentinel at admission as in the block (decisions.md §99).
  async pays(ctx, op) {
    const cfg = await vaultOr404(ctx, op.body.vault);
    return 'members' in cfg && reaches(cfg, [op.actor]) ? [{ from: op.body.vault, to: await ctx.recipients.payee(op.body.to), value: BigInt(op.body.amount) }] : [];
  },
  execute: (ctx, op) => create(ctx, op.body.vault, op.actor, { ...none, kind: 'payout', description: op.body.description ?? '', to: op.body.to, amount: BigInt(op.body.amount) }, op.txHash),
});

const MemberBody = Type.Object({ vault: VAULT, member: Type.String(), requester: Type.String(), remove: Type.Optional(Type.Boolean()) }, { additionalProperties: false });
const memberChange = (op: OperationInput<Static<typeof MemberBody>>, kind: 'add_member' | 'remove_member'): Change => ({ ...none, kind, member: op.body.member });

/** `POST /api/v1/vault/:vault/members`: one route, two operations told apart by `remove: true`. */
export const addMember = defineOperation({
  name: 'add_vault_member',
  viewFields,
  description: 'proposes adding a member to a vault',
  routes: [{ method: 'POST', path: '/api/v1/vault/:vault/members' }],
  socketMethod: 'add_vault_member',
  schema: MemberBody,
  signsFor: { field: 'vault' },
  actor: 'requester',
  value: null,
  gas: 60,
  check: (ctx, op) => checkCreate(ctx, op.body.vault, op.actor, 'requester', memberChange(op, 'add_member')),
  execute: (ctx, op) => create(ctx, op.body.vault, op.actor, memberChange(op, 'add_member'), op.txHash),
});

export const removeMember = defineOperation({
  name: 'remove_vault_member',
  viewFields,
  description: 'proposes removing a member from a vault (remove: true)',
  routes: [{ method: 'POST', path: '/api/v1/vault/:vault/members', selectedBy: Type.Object({ remove: Type.Literal(true) }) }],
  schema: MemberBody,
  signsFor: { field: 'vault' },
  actor: 'requester',
  value: null,
  gas: 60,
  check: (ctx, op) => checkCreate(ctx, op.body.vault, op.actor, 'requester', memberChange(op, 'remove_member')),
  execute: (ctx, op) => create(ctx, op.body.vault, op.actor, memberChange(op, 'remove_member'), op.txHash),
});

const ThresholdBody = Type.Object({ vault: VAULT, threshold: Type.Integer(), requester: Type.String() }, { additionalProperties: false });

export const setThreshold = defineOperation({
  name: 'set_vault_threshold',
  viewFields,
  description: 'proposes a new signature threshold for a vault',
  routes: [{ method: 'POST', path: '/api/v1/vault/:vault/threshold' }],
  socketMethod: 'set_vault_threshold',
  schema: ThresholdBody,
  signsFor: { field: 'vault' },
  actor: 'requester',
  value: null,
  gas: 60,
  check: (ctx, op) => checkCreate(ctx, op.body.vault, op.actor, 'requester', { ...none, kind: 'set_threshold', new_threshold: op.body.threshold }),
  execute: (ctx, op) => create(ctx, op.body.vault, op.actor, { ...none, kind: 'set_threshold', new_threshold: op.body.threshold }, op.txHash),
});

const SignBody = Type.Object({ vault: VAULT, id: Type.String({ pattern: '^[1-9][0-9]{0,11}$', description: 'the proposal id (the path\'s :id)' }), signer: Type.String() }, { additionalProperties: false });

/** The proposal a signature is for, and whether this signature executes it; or the refusal. */
async function signing(ctx: ReadContext, vault: string, idText: string, signer: string): Promise<ChainError | { cfg: VaultConfig; id: number; p: Proposal; executes: boolean }> {
  const cfg = await vaultOr404(ctx, vault);
  if (!('members' in cfg)) return cfg;
  const id = Number(idText);
  const p = await proposals.get(ctx.store, vault, id);
  if (p === undefined) return notFound(`no proposal ${idText} of ${vault}`);
  const notMember = memberProblem(cfg, vault, signer, 'signer');
  if (notMember) return notMember;
  if (p.status !== 'open') return badRequest(`proposal ${id} of ${vault} is ${p.status}: only an open proposal can be signed`);
  // The expiry sweep is bounded per block: a proposal it has not reached yet is expired all the same.
  if (ctx.height >= p.expires_height) return badRequest(`proposal ${id} of ${vault} expired at height ${p.expires_height}: only an open proposal can be signed`);
  if (p.signatures.includes(signer)) return badRequest(`${signer} already signed proposal ${id} of ${vault}`);
  const executes = reaches(cfg, [...p.signatures, signer]);
  if (executes) {
    const refused = await executionProblem(ctx, vault, cfg, p);
    if (refused) return refused;
  }
  return { cfg, id, p, executes };
}

export const signProposal = defineOperation({
  name: 'sign_vault_proposal',
  description: 'signs an open vault proposal; the signature that reaches the threshold executes it',
  routes: [{ method: 'POST', path: '/api/v1/vault/:vault/proposals/:id/sign' }],
  socketMethod: 'sign_vault_proposal',
  schema: SignBody,
  signsFor: { field: 'vault' },
  // §45: the signed payload leaves the proposal id out; the README says what that allows.
  uncoveredPathFields: ['id'],
  actor: 'signer',
  value: null,
  gas: 60,
  async check(ctx, op) {
    const s = await signing(ctx, op.body.vault, op.body.id, op.actor);
    return 'cfg' in s ? undefined : s;
  },
  // The signature that executes a payout moves coins out of the vault: judged by the sentinel at admission as in the block.
  async pays(ctx, op) {
    const s = await signing(ctx, op.body.vault, op.body.id, op.actor);
    return 'cfg' in s && s.executes && s.p.kind === 'payout' ? [{ from: op.body.vault, to: await ctx.recipients.payee(s.p.to), value: s.p.amount }] : [];
  },
  async execute(ctx, op) {
    const s = await signing(ctx, op.body.vault, op.body.id, op.actor);
    if (!('cfg' in s)) throw s;
    const signed: Proposal = { ...s.p, signatures: [...s.p.signatures, op.actor] };
    proposals.set(ctx.store, op.body.vault, s.id, signed);
    proposalSigned.emit(ctx, { vault: op.body.vault, proposal_id: s.id, signer: op.actor, signatures: signed.signatures.length, tx_hash: op.txHash });
    if (s.executes) await executeProposal(ctx, op.body.vault, s.cfg, s.id, signed, op.txHash);
  },
});

