import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sha3Hex0x, toHex } from '../../kernel/sdk.js';
import { TOKEN_ABI } from './templates/token/abi.js';

/**
 * The templates this build ships (`GET /api/v1/templates`): source in templates/<id>/assembly,
 * compiled by `npm run build` (build:templates) into dist beside this module; no .wasm is committed.
 */
const SHIPPED = [{ id: 'fungible-token', file: 'token.wasm', name: 'Fungible token', category: 'token', description: 'ERC-20-like token: initialize, transfer, approve, transfer_from, mint (owner), burn; Transfer events', abi: TOKEN_ABI }] as const;

export interface Template {
  readonly summary: Record<string, unknown>;
  readonly full: Record<string, unknown>;
}

/** The bytecode of a shipped template, read from the build output. */
export function templateBytecode(file: string): Uint8Array {
  return new Uint8Array(readFileSync(fileURLToPath(new URL(`./templates/${file}`, import.meta.url))));
}

let shipped: ReadonlySet<string> | undefined;

/**
 * Whether `codeHash` is the code of a template this build ships. Part of the consensus rules
 * like the fuel schedule (every node of a network runs the same build): such a deploy does not
 * pay the metering pass per function and byte, since its cost is paid once per node, not per
 * deploy, and a client of part 1 deploys these bytes without naming a gas limit.
 */
export function isShippedCode(codeHash: string): boolean {
  shipped ??= new Set(SHIPPED.map((t) => sha3Hex0x(templateBytecode(t.file))));
  return shipped.has(codeHash);
}

export function loadTemplates(): Template[] {
  return SHIPPED.map((t) => {
    const bytes = templateBytecode(t.file);
    const view = { id: t.id, name: t.name, category: t.category, description: t.description, bytecode_hash: sha3Hex0x(bytes), abi: t.abi, bytecode_hex: toHex(bytes) };
    return { summary: view, full: view };
  });
}
