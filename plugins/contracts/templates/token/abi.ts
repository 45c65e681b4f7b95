/** ABI of the fungible token template (part 1, Contract execution 10), served with its bytecode. */
export const TOKEN_ABI = {
  name: 'fungible-token',
  input: 'JSON {"function": f, "args": {...}} with args also flattened at the top level',
  functions: [
    { name: 'initialize', kind: 'write', args: ['name', 'symbol', 'decimals', 'total_supply'], description: 'once: mints total_supply to the caller, who becomes owner' },
    { name: 'name', kind: 'read', args: [], returns: 'string' },
    { name: 'symbol', kind: 'read', args: [], returns: 'string' },
    { name: 'decimals', kind: 'read', args: [], returns: 'number' },
    { name: 'total_supply', kind: 'read', args: [], returns: 'string (smallest unit)', aliases: ['totalSupply'] },
    { name: 'balance_of', kind: 'read', args: ['address'], returns: 'string (smallest unit)', aliases: ['balanceOf'] },
    { name: 'allowance', kind: 'read', args: ['owner', 'spender'], returns: 'string (smallest unit)' },
    { name: 'owner', kind: 'read', args: [], returns: 'string' },
    { name: 'transfer', kind: 'write', args: ['to', 'amount'], events: ['Transfer'] },
    { name: 'approve', kind: 'write', args: ['spender', 'amount'], events: ['Approval'] },
    { name: 'transfer_from', kind: 'write', args: ['from', 'to', 'amount'], events: ['Transfer'], aliases: ['transferFrom'] },
    { name: 'mint', kind: 'write', args: ['to', 'amount'], events: ['Transfer'], description: 'owner only' },
    { name: 'burn', kind: 'write', args: ['amount'], events: ['Transfer'] },
  ],
  events: [
    { name: 'Transfer', fields: ['from', 'to', 'amount'], description: 'from is null on mint, to is null on burn; amount a decimal string in the smallest unit' },
    { name: 'Approval', fields: ['owner', 'spender', 'amount'] },
  ],
  returns: '{"ok": value} on success, {"error": text} on a refused call (not a transaction failure)',
} as const;
