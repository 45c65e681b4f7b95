import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sha3Hex0x } from '../../kernel/sdk.js';
import { TOKEN_ABI } from './templates/token/abi.js';

/**
 * The templates this build ships (`GET /api/v1/templates`, `builtin: true`): source in
 * templates/<id>/assembly, compiled by `npm run build` (build:templates) into dist beside this
 * module; no .wasm is committed.
 */
const SHIPPED = [{ id: 'fungible-token', file: 'token.wasm', name: 'Fungible token', category: 'token', description: 'ERC-20-like token: initialize, transfer, approve, transfer_from, mint (owner), burn; Transfer events', abi: TOKEN_ABI }] as const;

/** The author decisions.md §51 names for shipped templates. */
export const BUILTIN_AUTHOR = 'chain:system.templates';

export interface ShippedTemplate {
  readonly id: string;
  readonly name: string;
  readonly category: string;
  readonly description: string;
  readonly abi: Readonly<Record<string, unknown>>;
  readonly bytes: Uint8Array;
  readonly bytecode_hash: string;
}

/** The bytecode of a shipped template, read from the build output. */
export function templateBytecode(file: string): Uint8Array {
  return new Uint8Array(readFileSync(fileURLToPath(new URL(`./templates/${file}`, import.meta.url))));
}

let shipped: readonly ShippedTemplate[] | undefined;

/** The shipped templates, read once. Part of the consensus rules like the fuel schedule: every node of a network runs the same build. */
export function shippedTemplates(): readonly ShippedTemplate[] {
  shipped ??= SHIPPED.map((t) => {
    const bytes = templateBytecode(t.file);
    return { id: t.id, name: t.name, category: t.category, description: t.description, abi: t.abi, bytes, bytecode_hash: sha3Hex0x(bytes) };
  });
  return shipped;
}

/**
 * Whether `codeHash` is the code of a template this build ships: such a deploy does not pay the
 * metering pass per function and byte, since its cost is paid once per node, not per deploy, and
 * a client of part 1 deploys these bytes without naming a gas limit.
 */
export function isShippedCode(codeHash: string): boolean {
  return shippedTemplates().some((t) => t.bytecode_hash === codeHash);
}

/**
 * Whether a deploy's bytes are metered without charge: a template's were metered once for all,
 * a shipped one's with every node, a registered one's in its registration's block (decisions.md
 * §51), so a deploy that names a template, or carries a shipped one's bytes, pays their storing
 * only. Otherwise a deploy naming a registered template and leaving its bytes out (§51: "the
 * template's are used") would have a limit without them, and fail out of fuel metering them.
 */
export function meteredOnceForAll(codeHash: string, namesTemplate: boolean): boolean {
  return namesTemplate || isShippedCode(codeHash);
}
