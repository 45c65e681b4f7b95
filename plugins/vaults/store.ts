import { Type } from '@sinclair/typebox';
import { defineStore, keyPart } from '../../kernel/sdk.js';

/** A vault's configuration (decisions.md §43); its balance is its own account's. */
export const vaults = defineStore('vaults', {
  name: 'vaults',
  description: 'a multi-signature vault: members in the order they joined, threshold, proposals numbered so far',
  key: ['vault', keyPart.address('address')],
  value: Type.Object({
    name: Type.String(),
    creator: Type.String(),
    members: Type.Array(Type.String(), { minItems: 1, maxItems: 32 }),
    threshold: Type.Integer({ minimum: 1, maximum: 32 }),
    created_height: Type.Integer({ minimum: 0 }),
    proposal_count: Type.Integer({ minimum: 0 }),
  }),
});

/** The vaults an address belongs to (`GET /api/v1/vault/member/:addr`, by vault address). */
export const memberships = defineStore('vaults', {
  name: 'memberships',
  description: 'a vault an address is a member of',
  key: ['member', keyPart.address('member'), keyPart.address('vault')],
  value: Type.Object({ joined_height: Type.Integer({ minimum: 0 }) }),
});

export const membershipCount = defineStore('vaults', {
  name: 'membership_count',
  description: 'the number of vaults an address is a member of',
  key: ['member_count', keyPart.address('member')],
  value: Type.Integer({ minimum: 1 }),
});

export const ProposalKind = Type.Union([Type.Literal('payout'), Type.Literal('add_member'), Type.Literal('remove_member'), Type.Literal('set_threshold')]);
export const ProposalStatus = Type.Union([Type.Literal('open'), Type.Literal('executed'), Type.Literal('expired'), Type.Literal('cancelled')]);

/** A vault proposal (decisions.md §44), by vault and id (1, 2, … per vault). */
export const proposals = defineStore('vaults', {
  name: 'proposals',
  description: 'a vault proposal: a payout, a member added or removed, a new threshold; its signatures and state',
  key: ['proposal', keyPart.address('vault'), keyPart.integer('id')],
  value: Type.Object({
    kind: ProposalKind,
    proposer: Type.String(),
    description: Type.String(),
    to: Type.String(),
    amount: Type.BigInt({ minimum: 0n }),
    member: Type.String(),
    new_threshold: Type.Integer({ minimum: 0 }),
    signatures: Type.Array(Type.String()),
    status: ProposalStatus,
    created_height: Type.Integer({ minimum: 0 }),
    expires_height: Type.Integer({ minimum: 0 }),
    executed_height: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
    tx_hash: Type.String(),
  }),
});

/** The open proposals of a vault: the ones a membership or threshold change cancels. */
export const openProposals = defineStore('vaults', {
  name: 'open_proposals',
  description: 'an open proposal of a vault',
  key: ['open', keyPart.address('vault'), keyPart.integer('id')],
  value: Type.Object({}),
});

/** Open proposals by the height they expire at: beginBlock expires them in order, a bounded scan. */
export const expiries = defineStore('vaults', {
  name: 'expiries',
  description: 'an open proposal by the height it expires at',
  key: ['expiry', keyPart.integer('expires_height'), keyPart.address('vault'), keyPart.integer('id')],
  value: Type.Object({}),
});
