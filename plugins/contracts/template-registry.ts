import { badRequest, formatCoin, notFound, sha3Hex0x, toHex, type ReadContext, type ReadonlyStore, type TxContext } from '../../kernel/sdk.js';
import type { DeployRequest } from './calls.js';
import { code } from './store.js';
import { BUILTIN_AUTHOR, shippedTemplates, type ShippedTemplate } from './templates.js';
import { templates, templateUsage, type RegisteredTemplate } from './template-store.js';

/** A deploy that names a template (decisions.md §51): which one, and the fee its signer pays the author's owner. */
export interface TemplateUse {
  readonly id: string;
  readonly fee: bigint;
  /** Who the fee went to at registration; none for a shipped template (fee 0). */
  readonly payee: string | undefined;
  /** The author `.node`: its owner in the deploy's block is paid (§51), `payee` if it has none. */
  readonly author?: string;
}

/** A deploy with its bytecode settled: given, or the named template's. */
export type ResolvedDeploy = DeployRequest & { readonly bytecode: Uint8Array; readonly templateUse: TemplateUse | undefined };

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * §51: a deploy that sets `template` names a listed template, shipped or registered: unknown or
 * deleted 404, deprecated 400, bytes differing from the template's 400; bytes omitted are the
 * template's. The same rule at admission and in the block.
 */
export async function resolveDeploy(ctx: Pick<ReadContext, 'store'>, req: DeployRequest): Promise<ResolvedDeploy> {
  if (req.template === null) {
    if (req.bytecode === null) throw badRequest('a deploy needs bytecode_hex or base64_wasm');
    return { ...req, bytecode: req.bytecode, templateUse: undefined };
  }
  const id = req.template;
  let bytes: Uint8Array | undefined;
  let use: TemplateUse;
  const builtin = shippedTemplates().find((t) => t.id === id);
  if (builtin) {
    bytes = builtin.bytes;
    use = { id, fee: 0n, payee: undefined };
  } else {
    const t = await registeredTemplate(ctx.store, id);
    if (t.status === 'deprecated') throw badRequest(`template ${id} is deprecated: it takes no new deploys`);
    bytes = await code.get(ctx.store, t.bytecode_hash);
    if (bytes === undefined) throw notFound(`template ${id} has no stored bytecode`);
    use = { id, fee: t.fee_unro, payee: t.payee, author: t.author };
  }
  if (req.bytecode !== null && !sameBytes(req.bytecode, bytes)) throw badRequest(`the bytecode differs from template ${id}'s (${sha3Hex0x(req.bytecode)} is not ${sha3Hex0x(bytes)}); omit it to deploy the template's`);
  return { ...req, bytecode: bytes, templateUse: use };
}

/** A registered template that is listed (not deleted), else 404. */
export async function registeredTemplate(store: ReadonlyStore, id: string): Promise<RegisteredTemplate> {
  const t = /^tpl-[0-9a-f]{16}$/.test(id) ? await templates.get(store, id) : undefined;
  if (t === undefined || t.status === 'deleted') throw notFound(`no template ${id}`);
  return t;
}

/** In the block, once the deploy succeeded: the fee moves to the author's owner (a transfer: supply unchanged) and the template counts the use. */
export async function payTemplate(ctx: TxContext, payer: string, use: TemplateUse): Promise<void> {
  if (use.fee > 0n && use.payee !== undefined) {
    const { balance } = await ctx.accounts.getCore(payer);
    if (balance < use.fee) throw badRequest(`insufficient balance for the template fee: template ${use.id} costs ${use.fee} ucoin, ${payer} has ${balance}`);
    // §51: the author's owner now, as a plain transfer to the `.node` would land (it may have changed hands since registration).
    const owner = use.author === undefined ? use.payee : await ctx.payee(use.author);
    await ctx.accounts.transfer(payer, typeof owner === 'string' ? owner : use.payee, use.fee);
  }
  const u = (await templateUsage.get(ctx.store, use.id)) ?? { uses: 0, earned: 0n };
  templateUsage.set(ctx.store, use.id, { uses: u.uses + 1, earned: u.earned + (use.payee === undefined ? 0n : use.fee) });
}

async function usage(store: ReadonlyStore, id: string): Promise<{ uses: number; earned: bigint }> {
  return (await templateUsage.get(store, id)) ?? { uses: 0, earned: 0n };
}

/** §51's record. */
export async function shippedView(store: ReadonlyStore, t: ShippedTemplate): Promise<Record<string, unknown>> {
  const u = await usage(store, t.id);
  return { id: t.id, name: t.name, description: t.description, category: t.category, author: BUILTIN_AUTHOR, bytecode_hash: t.bytecode_hash, bytecode_hex: toHex(t.bytes), abi: t.abi, fee_unro: 0n, fee_unro_human: formatCoin(0n), status: 'active', builtin: true, created_height: 0, tx_hash: null, uses: u.uses, earned: u.earned, earned_human: formatCoin(u.earned) };
}

export async function registeredView(store: ReadonlyStore, t: RegisteredTemplate): Promise<Record<string, unknown>> {
  const u = await usage(store, t.id);
  const bytes = (await code.get(store, t.bytecode_hash)) ?? new Uint8Array(0);
  return { id: t.id, name: t.name, description: t.description, category: t.category, author: t.author, bytecode_hash: t.bytecode_hash, bytecode_hex: toHex(bytes), abi: JSON.parse(t.abi_json) as unknown, fee_unro: t.fee_unro, fee_unro_human: formatCoin(t.fee_unro), status: t.status, builtin: false, created_height: t.created_height, tx_hash: t.tx_hash, uses: u.uses, earned: u.earned, earned_human: formatCoin(u.earned) };
}

export interface TemplateFilters {
  readonly status?: 'active' | 'deprecated';
  readonly author?: string;
  readonly category?: string;
}

/** §51's list: the shipped templates first, then the registered ones not deleted in the order registered. */
export async function templateList(store: ReadonlyStore, f: TemplateFilters): Promise<Array<Record<string, unknown>>> {
  const keep = (t: { status: string; author: string; category: string }): boolean => (f.status === undefined || t.status === f.status) && (f.author === undefined || t.author === f.author) && (f.category === undefined || t.category === f.category);
  const out: Array<Record<string, unknown>> = [];
  for (const t of shippedTemplates()) if (keep({ status: 'active', author: BUILTIN_AUTHOR, category: t.category })) out.push(await shippedView(store, t));
  const registered = (await templates.scan(store)).map((r) => r.value).filter((t) => t.status !== 'deleted' && keep(t));
  registered.sort((a, b) => a.created_height - b.created_height || (a.id < b.id ? -1 : 1));
  for (const t of registered) out.push(await registeredView(store, t));
  return out;
}

/** One template, shipped or registered (404 unknown or deleted). */
export async function templateOne(store: ReadonlyStore, id: string): Promise<Record<string, unknown>> {
  const builtin = shippedTemplates().find((t) => t.id === id);
  if (builtin) return shippedView(store, builtin);
  return registeredView(store, await registeredTemplate(store, id));
}
