import { writeFileSync } from 'node:fs';
import { isAddress } from '../../kernel/crypto/address.js';
import { nobleProvider } from '../../kernel/crypto/noble-provider.js';
import { collectGenesis } from '../../kernel/config/genesis-collect.js';
import { GenesisRuleError, checkGenesis, checkJoin } from '../../kernel/config/genesis-rules.js';
import type { GenesisDoc, JoinStatement } from '../../kernel/config/genesis.js';
import { genesisHash } from '../../kernel/chain/block-hash.js';
import type { Catalogue } from '../catalogue.js';
import { readJoinFile } from './home.js';
import { networkFacts } from './network.js';

export interface CollectFilesOptions {
  readonly network: string;
  readonly configDir: string;
  readonly chainId: string;
  readonly genesisTime: number;
  /** `<address>=<ucoin>` */
  readonly accounts: readonly string[];
  /** `<key>=<value>` */
  readonly params: readonly string[];
  readonly out: string;
  readonly joinFiles: readonly string[];
}

function pair(flag: string, text: string): [string, string] {
  const at = text.lastIndexOf('=');
  if (at <= 0 || at === text.length - 1) throw new Error(`--${flag} "${text}": expected <name>=<value>`);
  return [text.slice(0, at), text.slice(at + 1)];
}

function ucoin(flag: string, text: string): bigint {
  if (!/^(0|[1-9]\d{0,30})$/.test(text)) throw new Error(`--${flag}: "${text}" is not an integer amount in ucoin`);
  return BigInt(text);
}

/**
 * `chain genesis collect` (decisions.md §82): every join statement checked (naming its file and the
 * rule), then the genesis of the one builder; nothing is written unless every statement passes.
 */
export function collectFiles(o: CollectFilesOptions, catalogue: Catalogue): { doc: GenesisDoc; hash: string } {
  if (o.joinFiles.length === 0) throw new Error('no join statements: pass the join.json files of every genesis validator');
  if (!Number.isSafeInteger(o.genesisTime) || o.genesisTime < 0) throw new Error(`--genesis-time must be milliseconds since the epoch, got ${o.genesisTime}`);
  const facts = networkFacts(o.network, o.configDir, catalogue);
  const params: Record<string, string> = {};
  for (const text of o.params) {
    const [key, value] = pair('param', text);
    if (!facts.params.has(key)) throw new Error(`--param ${key}: no parameter of that name on network ${o.network} (known: ${facts.params.list().map((p) => p.key).sort().join(', ')})`);
    const problem = facts.params.checkValue(key, ucoin('param', value));
    if (problem) throw new Error(`--param ${key}: ${problem}`);
    params[key] = value;
  }
  const accounts = o.accounts.map((text) => {
    const [address, balance] = pair('account', text);
    if (!isAddress(address)) throw new Error(`--account ${text}: "${address}" is not a chain address`);
    return { address, balance: ucoin('account', balance) };
  });
  const joins: JoinStatement[] = [];
  const byAddress = new Map<string, string>();
  const byKey = new Map<string, string>();
  for (const file of o.joinFiles) {
    let join: JoinStatement;
    try {
      join = checkJoin(readJoinFile(file), o.chainId, { minStake: facts.minStake, params, provider: nobleProvider });
    } catch (e) {
      throw e instanceof GenesisRuleError ? e.in(file) : e;
    }
    const sameAddress = byAddress.get(join.address);
    if (sameAddress !== undefined) throw new GenesisRuleError('duplicate address', join.address, `also in ${sameAddress}`, file);
    const sameKey = byKey.get(join.public_key);
    if (sameKey !== undefined) throw new GenesisRuleError('duplicate public_key', join.address, `the same public_key as the statement in ${sameKey}`, file);
    byAddress.set(join.address, file);
    byKey.set(join.public_key, file);
    joins.push(join);
  }
  const doc = collectGenesis(joins, { chainId: o.chainId, genesisTime: o.genesisTime, testNetwork: facts.testNetwork, accounts, params });
  checkGenesis(doc, { minStake: facts.minStake, provider: nobleProvider });
  writeFileSync(o.out, JSON.stringify(doc, null, 2) + '\n');
  return { doc, hash: genesisHash(doc) };
}
