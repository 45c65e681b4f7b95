import { collectGenesis } from '../../kernel/config/genesis-collect.js';
import { signJoin } from '../../kernel/config/genesis-join.js';
import type { GenesisDoc, JoinStatement } from '../../kernel/config/genesis.js';
import { nobleProvider } from '../../kernel/crypto/noble-provider.js';
import { toHex } from '../../kernel/codec/hex.js';
import type { KeyPair } from '../../kernel/crypto/provider.js';

/** A genesis validator of a test: its `.node`, the consensus key that signs its join statement, its stake. */
export interface TestGenesisValidator {
  readonly address: string;
  readonly key: KeyPair;
  readonly stake: string;
  /** `<host>:<port>` its join statement names; 127.0.0.1:26656 when the test dials by other means. */
  readonly p2p?: string;
}

// Signing a join costs an ML-DSA-65 signature; unit tests build the same genesis many times.
const joins = new Map<string, JoinStatement>();

function joinOf(chainId: string, v: TestGenesisValidator): JoinStatement {
  const p2p = v.p2p ?? '127.0.0.1:26656';
  const id = [chainId, v.address, v.stake, p2p, toHex(v.key.publicKey)].join('|');
  let join = joins.get(id);
  if (!join) {
    join = signJoin({ chainId, address: v.address, key: v.key, stake: BigInt(v.stake), p2pExternal: p2p }, nobleProvider);
    joins.set(id, join);
  }
  return join;
}

/**
 * A genesis the way operators make one (decisions.md §82): a signed join statement per validator,
 * gathered by the one builder, `collectGenesis`. Funds only the accounts named (no owner funds).
 */
export function testGenesis(o: { chainId: string; validators: readonly TestGenesisValidator[]; accounts?: ReadonlyArray<{ address: string; balance: bigint }>; params?: Record<string, string>; genesisTime?: number }): GenesisDoc {
  return collectGenesis(o.validators.map((v) => joinOf(o.chainId, v)), { chainId: o.chainId, genesisTime: o.genesisTime ?? 1_700_000_000_000, testNetwork: false, accounts: o.accounts ?? [], params: o.params ?? {} });
}
