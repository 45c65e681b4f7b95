import { Type } from '@sinclair/typebox';
import { addressKind, badRequest, conflict, defineOperation, forbidden, isChainError, parseHex, sha3Hex0x, type ChainError, type ReadContext } from '../../../kernel/sdk.js';
import { templateRegisterBodyGas } from '../deploy-gas.js';
import { CONTRACT_BASE_GAS, readSettings, type DeployGate, type Settings } from '../execute.js';
import { code } from '../store.js';
import { checkCodeShape } from '../vm/shape.js';
import { BUILTIN_AUTHOR, shippedTemplates } from '../templates.js';
import { registeredTemplate } from '../template-registry.js';
import { templateNames, templates } from '../template-store.js';

/** decisions.md §51: what template registrations and deprecations sign for. */
export const TEMPLATES_ADDRESS = BUILTIN_AUTHOR;
/** The most a template's `fee_unro` may be (ucoin). */
export const MAX_TEMPLATE_FEE = 1_000_000_000_000_000;
const ABI_MAX_BYTES = 64 * 1024;
/** §32's label rules, which §51 applies to a category. */
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/;

export const TemplateRegisterBody = Type.Object(
  {
    author: Type.String({ minLength: 1, maxLength: 128, description: 'a registered .node, acting through its owner' }),
    name: Type.String({ minLength: 1, maxLength: 64, description: "unique among the author's templates not deleted" }),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    category: Type.Optional(Type.String({ maxLength: 32, description: 'a label: 1 to 32 of a-z, 0-9 and -, not starting or ending with -' })),
    bytecode_hex: Type.String({ minLength: 1, description: 'the module, hex; held to the deploy checks (400) and the deploy gate (403)' }),
    abi_json: Type.Optional(Type.String({ description: 'the text of a JSON array or object, at most 64 KiB (default {})' })),
    fee_unro: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_TEMPLATE_FEE, description: "ucoin every deploy naming the template pays the author's owner (default 0)" })),
  },
  { additionalProperties: false },
);

export const TemplateDeprecateBody = Type.Object(
  {
    template_id: Type.String({ minLength: 1, maxLength: 64 }),
    author: Type.String({ minLength: 1, maxLength: 128, description: 'the template\'s author' }),
    delete: Type.Optional(Type.Boolean({ description: 'true: the record leaves the list and reads (its id is never reused)' })),
  },
  { additionalProperties: false },
);

type RegisterBody = typeof TemplateRegisterBody.static;

/** §51: `tpl-` + the first 16 hex of SHA3-256(`ch-template|<author>|<register tx hash>`). */
export const templateId = (author: string, txHash: string): string => `tpl-${sha3Hex0x(`ch-template|${author}|${txHash}`).slice(2, 18)}`;

/** What the template operations need of the contracts plugin's runtime: its deploy gate and the VM's checks of bytes (metering). */
export interface TemplateDeps {
  readonly gate: DeployGate;
  /** The VM's deploy checks of the bytes (400 when refused): off consensus at admission, on the block's thread in a block. */
  readonly meter: (where: 'admission' | 'block', codeHash: string, bytes: Uint8Array, s: Settings) => Promise<void>;
  /** A registration passed admission's metering and gate: its block will meter it again on the blocks' thread. */
  readonly accepted?: () => void;
}

function abiProblem(text: string): ChainError | undefined {
  if (Buffer.byteLength(text, 'utf8') > ABI_MAX_BYTES) return badRequest(`abi_json is more than ${ABI_MAX_BYTES} bytes`);
  try {
    const v: unknown = JSON.parse(text);
    if (v === null || typeof v !== 'object') return badRequest('abi_json must be the text of a JSON array or object');
  } catch {
    return badRequest('abi_json is not JSON');
  }
  return undefined;
}

/** `check`: the rules, no metering (it runs in the block too); `block`: the rules and the block thread's metering. */
async function registerProblem(ctx: ReadContext, deps: TemplateDeps, where: 'check' | 'block', b: RegisterBody): Promise<ChainError | undefined> {
  if (addressKind(b.author) !== 'node') return forbidden(`author ${b.author} is not a .node: templates are registered by a .node acting through its owner (decisions.md §51)`);
  if (b.category !== undefined && !LABEL.test(b.category)) return badRequest('category must be a label: 1 to 32 of a-z, 0-9 and -, not starting or ending with -');
  const abi = abiProblem(b.abi_json ?? '{}');
  if (abi) return abi;
  if ((await templateNames.get(ctx.store, b.author, sha3Hex0x(b.name))) !== undefined) return conflict(`${b.author} already has a template named "${b.name}"`);
  const bytes = parseHex(b.bytecode_hex);
  if (bytes === null || bytes.length === 0) return badRequest('bytecode_hex is not hex');
  const s = await readSettings(ctx.params);
  if (bytes.length > s.maxBytecode) return badRequest(`bytecode is ${bytes.length} bytes, above contract_max_bytecode_bytes (${s.maxBytecode})`);
  if (bytes.length < 8 || bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) return badRequest('bytecode_hex is not a WebAssembly module');
  const hash = sha3Hex0x(bytes);
  try {
    checkCodeShape(bytes);
    // In `check` (admission and block alike) no metering and no gate: `admit` meters off-chain
    // then gates, `execute` meters on the block thread then gates, so both answer 400 before 403.
    if (where === 'check') return undefined;
    await deps.meter('block', hash, bytes, s);
  } catch (err) {
    if (isChainError(err)) return err;
    throw err;
  }
  const verdict = await deps.gate.verdict(ctx, { owner: b.author, address: TEMPLATES_ADDRESS, codeHash: hash, bytecode: bytes });
  return verdict.refused;
}

/** The template operations, bound to the plugin's gate and VM. */
export function templateOperations(deps: TemplateDeps) {
  const register = defineOperation({
    name: 'register_template',
    description: 'a .node registers a contract template with a fee its deploys pay (decisions.md §51)',
    routes: [{ method: 'POST', path: '/api/v1/templates/register' }],
    schema: TemplateRegisterBody,
    actor: 'author',
    signsFor: TEMPLATES_ADDRESS,
    value: null,
    gas: CONTRACT_BASE_GAS,
    bodyGas: templateRegisterBodyGas,
    mainKeyOnly: 'register a template as its author',
    async check(ctx, op) {
      return registerProblem(ctx, deps, 'check', op.body);
    },
    async admit(ctx, op) {
      // The off-chain pool's queue and time limit are this node's own: admission only (operation.ts `admit`).
      const bytes = parseHex(op.body.bytecode_hex);
      if (bytes === null) return badRequest('bytecode_hex is not hex');
      const hash = sha3Hex0x(bytes);
      try {
        await deps.meter('admission', hash, bytes, await readSettings(ctx.params));
      } catch (err) {
        if (isChainError(err)) return err;
        throw err;
      }
      const refused = (await deps.gate.verdict(ctx, { owner: op.body.author, address: TEMPLATES_ADDRESS, codeHash: hash, bytecode: bytes })).refused;
      if (refused === undefined) deps.accepted?.();
      return refused;
    },
    async execute(ctx, op) {
      // The kernel ran check on the block's state without the VM pass; this is the block's own.
      const refused = await registerProblem(ctx, deps, 'block', op.body);
      if (refused) throw refused;
      const b = op.body;
      const bytes = parseHex(b.bytecode_hex)!;
      const hash = sha3Hex0x(bytes);
      const id = templateId(b.author, op.txHash);
      if ((await templates.get(ctx.store, id)) !== undefined) throw conflict(`template ${id} exists`);
      code.set(ctx.store, hash, bytes);
      templates.set(ctx.store, id, { id, name: b.name, description: b.description ?? '', category: b.category ?? '', author: b.author, payee: op.signer.account, bytecode_hash: hash, abi_json: b.abi_json ?? '{}', fee_unro: BigInt(b.fee_unro ?? 0), status: 'active', created_height: ctx.block.height, tx_hash: op.txHash });
      templateNames.set(ctx.store, b.author, sha3Hex0x(b.name), { id });
    },
  });

  const deprecate = defineOperation({
    name: 'deprecate_template',
    description: 'a template\'s author deprecates or deletes it (decisions.md §51)',
    routes: [{ method: 'POST', path: '/api/v1/templates/deprecate', nodeOnly: true }],
    schema: TemplateDeprecateBody,
    actor: 'author',
    signsFor: TEMPLATES_ADDRESS,
    value: null,
    gas: CONTRACT_BASE_GAS,
    mainKeyOnly: 'deprecate a template as its author',
    async check(ctx, op) {
      const b = op.body;
      if (shippedTemplates().some((t) => t.id === b.template_id)) return forbidden(`template ${b.template_id} ships with the node: it cannot be deprecated`);
      let t;
      try {
        t = await registeredTemplate(ctx.store, b.template_id);
      } catch (err) {
        if (isChainError(err)) return err;
        throw err;
      }
      if (t.author !== b.author) return forbidden(`${b.author} is not the author of template ${b.template_id} (${t.author} is)`);
      if (b.delete !== true && t.status === 'deprecated') return badRequest(`template ${b.template_id} is already deprecated`);
      return undefined;
    },
    async execute(ctx, op) {
      const b = op.body;
      const t = await registeredTemplate(ctx.store, b.template_id);
      if (b.delete === true) {
        templates.set(ctx.store, t.id, { ...t, status: 'deleted' });
        templateNames.delete(ctx.store, t.author, sha3Hex0x(t.name));
      } else {
        templates.set(ctx.store, t.id, { ...t, status: 'deprecated' });
      }
    },
  });
  return [register, deprecate] as const;
}
