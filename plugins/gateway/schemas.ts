import { Type } from '@sinclair/typebox';
import { HexBytes } from '../../kernel/sdk.js';

/**
 * POST `/api/v1/contracts/audit` (Gateway only, decisions.md §52): `bytecode_hex` and nothing else
 * (a body with `source`, `source_code` or `code` is refused: source code is not accepted). The
 * route checks its body with it; the assistant tool server's `ch_analyze_contract` takes its
 * argument from it.
 */
export const AuditBody = Type.Object({ bytecode_hex: { ...HexBytes, description: 'the WebAssembly bytecode to analyse, as hex' } }, { additionalProperties: false });
