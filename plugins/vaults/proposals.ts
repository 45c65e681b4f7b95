import type { Static } from '@sinclair/typebox';
import { addressKind, badRequest, forbidden, foreignRecordError, formatCoin, isKeyDerivedAddress, notFound, type ChainError, type ReadContext, type TxContext, type WriteContext } from '../../kernel/sdk.js';
import { expiries, membershipCount, memberships, openProposals, proposals, vaults } from './store.js';
import { proposalCancelled, proposalExecuted, proposalExpired } from './events.js';

export type VaultConfig = Static<typeof vaults.value>;
export type Proposal = Static<typeof proposals.value>;
export type ProposalKind = Proposal['kind'];

/** decisions.md §44: the governance parameter of a proposal's life, in blocks. */
export const EXPIRY_PARAM = 'vault_proposal_expiry_blocks';
/** decisions.md §43. */
export const MAX_MEMBERS = 32;

/** The vault, or 404; a vault another shard owns is 400 naming that shard (decisions.md §73), checked at admission and in the block. */
export async function vaultOr404(ctx: ReadContext, vault: string): Promise<VaultConfig | ChainError> {
  if (!ctx.shard.owns(vault)) return foreignRecordError(ctx.shard, vault);
  return (await vaults.get(ctx.store, vault)) ?? notFound(`no vault ${vault}`);
}

/** 403 unless `who` is a member of the vault (decisions.md §44). */
export function memberProblem(cfg: VaultConfig, vault: string, who: string, role: string): ChainError | undefined {
  return cfg.members.includes(who) ? undefined : forbidden(`${role} ${who} is not a member of ${vault}`);
}

/** What a proposal of `kind` asks, judged against the vault as it is (decisions.md §44, 400s). */
export async function proposalProblem(ctx: ReadContext, vault: string, cfg: VaultConfig, p: Pick<Proposal, 'kind' | 'to' | 'amount' | 'member' | 'new_threshold'>): Promise<ChainError | undefined> {
  switch (p.kind) {
    case 'payout': {
      if (p.amount <= 0n) return badRequest(`amount must be a positive integer of ucoin, not ${p.amount}`);
      if (p.to === vault) return badRequest(`to ${p.to} is this vault: a payout goes elsewhere`);
      if (addressKind(p.to) === 'app') return badRequest(`to ${p.to} is a contract (.app): a vault pays out to accounts only`);
      const refused = await ctx.recipients.problem(p.to);
      return refused ?? undefined;
    }
    case 'add_member':
      if (!isKeyDerivedAddress(p.member)) return badRequest(`member ${p.member} must be a key-derived .human address (chain:<15 hex>.human)`);
      if (cfg.members.includes(p.member)) return badRequest(`${p.member} is already a member of ${vault}`);
      if (cfg.members.length >= MAX_MEMBERS) return badRequest(`${vault} has ${cfg.members.length} members, the most a vault may have (${MAX_MEMBERS})`);
      return undefined;
    case 'remove_member':
      if (!cfg.members.includes(p.member)) return badRequest(`${p.member} is not a member of ${vault}`);
      if (cfg.members.length - 1 < Math.max(1, cfg.threshold)) return badRequest(`removing ${p.member} would leave ${cfg.members.length - 1} members, fewer than the threshold ${cfg.threshold} (and at least one must stay)`);
      return undefined;
    case 'set_threshold':
      if (!Number.isSafeInteger(p.new_threshold) || p.new_threshold < 1 || p.new_threshold > cfg.members.length) return badRequest(`threshold must be an integer from 1 to the number of members (${cfg.members.length}), not ${p.new_threshold}`);
      if (p.new_threshold === cfg.threshold) return badRequest(`threshold is already ${cfg.threshold}`);
      return undefined;
  }
}

/**
 * Why the operation bringing `p` to the threshold may not execute it now: the proposal's own
 * rules against the vault as it is, and for a payout the vault's balance (400 naming both
 * amounts; the proposal stays open until funded).
 */
export async function executionProblem(ctx: ReadContext, vault: string, cfg: VaultConfig, p: Proposal): Promise<ChainError | undefined> {
  const refused = await proposalProblem(ctx, vault, cfg, p);
  if (refused) return refused;
  if (p.kind === 'payout') {
    const balance = (await ctx.accounts.get(vault)).balance;
    if (balance < p.amount) return badRequest(`insufficient vault balance: the payout is ${p.amount} ucoin and ${vault} holds ${balance}; it stays open until the vault is funded`);
  }
  return undefined;
}

/** Whether `signatures` reach the vault's threshold. */
export const reaches = (cfg: VaultConfig, signatures: readonly string[]): boolean => signatures.length >= cfg.threshold;

/** A new open proposal, signed by its proposer; its id is the vault's next. */
export async function openProposal(ctx: TxContext, vault: string, cfg: VaultConfig, p: Pick<Proposal, 'kind' | 'proposer' | 'description' | 'to' | 'amount' | 'member' | 'new_threshold'>, txHash: string): Promise<{ id: number; proposal: Proposal; cfg: VaultConfig }> {
  const id = cfg.proposal_count + 1;
  const life = Number(await ctx.params.get(EXPIRY_PARAM));
  const proposal: Proposal = { ...p, signatures: [p.proposer], status: 'open', created_height: ctx.block.height, expires_height: ctx.block.height + life, executed_height: null, tx_hash: txHash };
  const next = { ...cfg, proposal_count: id };
  vaults.set(ctx.store, vault, next);
  proposals.set(ctx.store, vault, id, proposal);
  openProposals.set(ctx.store, vault, id, {});
  expiries.set(ctx.store, proposal.expires_height, vault, id, {});
  return { id, proposal, cfg: next };
}

function close(ctx: TxContext, vault: string, id: number, p: Proposal): void {
  openProposals.delete(ctx.store, vault, id);
  expiries.delete(ctx.store, p.expires_height, vault, id);
}

async function join(ctx: TxContext, member: string, vault: string): Promise<void> {
  memberships.set(ctx.store, member, vault, { joined_height: ctx.block.height });
  membershipCount.set(ctx.store, member, ((await membershipCount.get(ctx.store, member)) ?? 0) + 1);
}

async function leave(ctx: TxContext, member: string, vault: string): Promise<void> {
  memberships.delete(ctx.store, member, vault);
  const left = ((await membershipCount.get(ctx.store, member)) ?? 1) - 1;
  if (left > 0) membershipCount.set(ctx.store, member, left);
  else membershipCount.delete(ctx.store, member);
}

export { join as joinVault };

/**
 * Applies a proposal that reached the threshold, in the transaction that brought the last
 * signature (decisions.md §44). The caller checked `executionProblem` in this same state. A
 * membership or threshold change cancels every other open proposal of the vault.
 */
export async function executeProposal(ctx: TxContext, vault: string, cfg: VaultConfig, id: number, p: Proposal, txHash: string): Promise<void> {
  let next = cfg;
  if (p.kind === 'payout') {
    const payee = await ctx.recipients.payee(p.to);
    // Out of the vault by the members' authority: shown to beforeTransfer and counted like the signer's own move.
    await ctx.accounts.transfer(vault, payee, p.amount, { onBehalf: true });
  } else if (p.kind === 'add_member') {
    next = { ...cfg, members: [...cfg.members, p.member] };
    await join(ctx, p.member, vault);
  } else if (p.kind === 'remove_member') {
    next = { ...cfg, members: cfg.members.filter((m) => m !== p.member) };
    await leave(ctx, p.member, vault);
  } else {
    next = { ...cfg, threshold: p.new_threshold };
  }
  vaults.set(ctx.store, vault, next);
  proposals.set(ctx.store, vault, id, { ...p, status: 'executed', executed_height: ctx.block.height });
  close(ctx, vault, id, p);
  proposalExecuted.emit(ctx, { vault, proposal_id: id, kind: p.kind, to: p.to, amount: p.amount, tx_hash: txHash });
  if (p.kind === 'payout') return;
  // The signatures on the others were given under another policy.
  for (const row of await openProposals.scan(ctx.store, { prefix: [vault] })) {
    const otherId = Number(row.key[1]);
    const other = await proposals.get(ctx.store, vault, otherId);
    if (other === undefined || other.status !== 'open') continue;
    proposals.set(ctx.store, vault, otherId, { ...other, status: 'cancelled' });
    close(ctx, vault, otherId, other);
    proposalCancelled.emit(ctx, { vault, proposal_id: otherId, by_proposal: id, tx_hash: txHash });
  }
}

/** At most this many a block, the rest in the next blocks. */
const EXPIRE_PER_BLOCK = 256;

/** beginBlock: every open proposal whose `expires_height` is this height or lower becomes `expired`. */
export async function expireDue(ctx: WriteContext): Promise<void> {
  const due = await expiries.scan(ctx.store, { limit: EXPIRE_PER_BLOCK });
  for (const row of due) {
    const [height, vault, id] = row.key as unknown as [number, string, number];
    if (height > ctx.block.height) break;
    expiries.delete(ctx.store, height, vault, id);
    openProposals.delete(ctx.store, vault, id);
    const p = await proposals.get(ctx.store, vault, id);
    if (p === undefined || p.status !== 'open') continue;
    proposals.set(ctx.store, vault, id, { ...p, status: 'expired' });
    proposalExpired.emit(ctx, { vault, proposal_id: id });
  }
}

/** A proposal as its routes answer it. */
export function proposalView(vault: string, id: number, p: Proposal): Record<string, unknown> {
  return {
    id,
    vault,
    kind: p.kind,
    proposer: p.proposer,
    description: p.description,
    ...(p.kind === 'payout' ? { to: p.to, amount: p.amount, amount_human: formatCoin(p.amount) } : {}),
    ...(p.kind === 'add_member' || p.kind === 'remove_member' ? { member: p.member } : {}),
    ...(p.kind === 'set_threshold' ? { new_threshold: p.new_threshold } : {}),
    signatures: p.signatures,
    status: p.status,
    created_height: p.created_height,
    expires_height: p.expires_height,
    executed_height: p.executed_height,
    tx_hash: p.tx_hash,
  };
}
