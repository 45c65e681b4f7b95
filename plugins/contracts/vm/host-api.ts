/**
 * The host API: the only imports a contract may have, all from module `env`. Pointers and
 * lengths are i32 offsets into the contract's memory; an output is written to `(out_ptr,
 * out_cap)` and the function returns the full length (when it is above `out_cap` nothing is
 * written: call again with a bigger buffer). Listed with their meaning in plugins/contracts/README.md.
 */
export const HOST_MODULE = 'env';

export interface HostFunctionSpec {
  readonly params: readonly ('i32' | 'i64')[];
  readonly results: readonly ('i32' | 'i64')[];
  readonly doc: string;
}

export const HOST_FUNCTIONS: ReadonlyMap<string, HostFunctionSpec> = new Map<string, HostFunctionSpec>([
  ['get_caller', { params: ['i32', 'i32'], results: ['i32'], doc: 'get_caller(out_ptr, out_cap) -> len: the verified signer, or the calling contract in a cross-contract call (UTF-8 address)' }],
  ['get_self', { params: ['i32', 'i32'], results: ['i32'], doc: 'get_self(out_ptr, out_cap) -> len: this contract\'s address' }],
  ['storage_read', { params: ['i32', 'i32', 'i32', 'i32'], results: ['i32'], doc: 'storage_read(key_ptr, key_len, out_ptr, out_cap) -> len, or -1 when the key is absent' }],
  ['storage_write', { params: ['i32', 'i32', 'i32', 'i32'], results: [], doc: 'storage_write(key_ptr, key_len, val_ptr, val_len): in this contract\'s own namespace' }],
  ['storage_delete', { params: ['i32', 'i32'], results: [], doc: 'storage_delete(key_ptr, key_len)' }],
  ['set_return', { params: ['i32', 'i32'], results: [], doc: 'set_return(ptr, len): the call\'s return data (by convention JSON {"ok": …} or {"error": …}); the last call wins' }],
  ['emit_event', { params: ['i32', 'i32', 'i32', 'i32'], results: [], doc: 'emit_event(name_ptr, name_len, data_ptr, data_len): a contract event; data is a JSON object text' }],
  ['call_contract', { params: ['i32', 'i32', 'i32', 'i32', 'i32', 'i32'], results: ['i32'], doc: 'call_contract(addr_ptr, addr_len, input_ptr, input_len, out_ptr, out_cap) -> len of the callee\'s return data; a trap in the callee traps the caller' }],
  ['block_height', { params: [], results: ['i64'], doc: 'block_height() -> the height of the block being executed (the last committed height in a dry run)' }],
  ['block_time', { params: [], results: ['i64'], doc: 'block_time() -> the block\'s timestamp in milliseconds (the last committed block\'s in a dry run)' }],
  ['abort', { params: ['i32', 'i32', 'i32', 'i32'], results: [], doc: 'abort(msg_ptr, file_ptr, line, column): traps (AssemblyScript\'s `abort`)' }],
]);
