import { Type, type Static } from '@sinclair/typebox';
import { defineStore, keyPart } from '../../kernel/sdk.js';

/**
 * Registered templates (decisions.md §51) in the contracts plugin's state: the record by id (its
 * bytecode lives in the `code` store under its hash, shared with the contracts deployed from it),
 * the author's names not deleted (a name is unique among them), and each template's `uses` and
 * `earned`, shipped ones included.
 */
export const TEMPLATE_ID = /^tpl-[0-9a-f]{16}$/;

const RegisteredTemplate = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  category: Type.String(),
  author: Type.String(),
  /** The author's owner when it registered (the account that signed for the `.node`): every deploy naming the template pays it. */
  payee: Type.String(),
  bytecode_hash: Type.String(),
  /** `abi_json` as sent (checked to be a JSON array or object); the view parses it. */
  abi_json: Type.String(),
  fee_unro: Type.BigInt({ minimum: 0n }),
  /** `deleted` stays in state so that its id is never reused (§51); it leaves the list and reads. */
  status: Type.Union([Type.Literal('active'), Type.Literal('deprecated'), Type.Literal('deleted')]),
  created_height: Type.Integer({ minimum: 0 }),
  tx_hash: Type.String(),
});
export type RegisteredTemplate = Static<typeof RegisteredTemplate>;

export const templates = defineStore('contracts', {
  name: 'templates',
  description: 'a registered contract template (§51), by id; a deleted one stays as a tombstone',
  key: ['template', keyPart.string('id', { pattern: TEMPLATE_ID })],
  value: RegisteredTemplate,
});

export const templateNames = defineStore('contracts', {
  name: 'templateNames',
  description: "an author's template name not deleted (SHA3-256 of the name), to keep names unique per author",
  key: ['template-name', keyPart.address('author'), keyPart.hash('name_hash')],
  value: Type.Object({ id: Type.String() }),
});

export const templateUsage = defineStore('contracts', {
  name: 'templateUsage',
  description: "a template's deploys and the template fees they paid its author (shipped templates too)",
  key: ['template-use', keyPart.string('id', { maxLength: 64 })],
  value: Type.Object({ uses: Type.Integer({ minimum: 0 }), earned: Type.BigInt({ minimum: 0n }) }),
});

export const TEMPLATE_STORES = [templates, templateNames, templateUsage];
