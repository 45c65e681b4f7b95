import type { Command } from 'commander';
import { nobleProvider } from '../kernel/crypto/noble-provider.js';
import { readGenesis } from '../kernel/node/genesis-file.js';
import type { CatalogueSource } from './catalogue.js';
import { collectFiles } from './operator/collect.js';
import { initHome, installGenesis, writeJoin } from './operator/home.js';
import { networkFacts } from './operator/network.js';
import { makeTestnet } from './operator/testnet.js';
import { configDirOption } from './config-dir-option.js';

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function port(name: string, text: string): number {
  if (!/^\d{1,5}$/.test(text)) throw new Error(`--${name} must be a port number, got "${text}"`);
  return Number(text);
}

function ucoinFlag(name: string, text: string): bigint {
  if (!/^(0|[1-9]\d{0,30})$/.test(text)) throw new Error(`--${name} must be an integer amount in ucoin, got "${text}"`);
  return BigInt(text);
}

const DEFAULT_NETWORK = process.env.CHAIN_NETWORK ?? 'devnet';

/**
 * The operators' verbs of decisions.md §82–83: a home per validator host (`init`), a signed join
 * statement from each (`genesis join`), one genesis from all of them (`genesis collect`), checked
 * (`genesis validate`) and installed in every home (`genesis install`); `testnet` runs the same
 * steps for N homes on one machine.
 */
export function registerOperatorCommands(program: Command, catalogue: CatalogueSource): void {
  program
    .command('init')
    .description('make a node home: a consensus key (keys/validator.json, mode 0600) and config/node.json; prints node_address, node_id and the owner address')
    .requiredOption('--home <dir>', 'the home folder to create')
    .requiredOption('--moniker <label>', 'this node\'s label (1 to 32 of a-z, 0-9, -): its address is chain:<label>.node')
    .option('--network <name>', 'network config (configs/<name>.json) the node runs', DEFAULT_NETWORK)
    .addOption(configDirOption())
    .option('--rpc-host <host>', 'RPC listen address', '127.0.0.1')
    .option('--rpc-port <port>', 'RPC port', '9933')
    .option('--p2p-host <host>', 'P2P listen address', '0.0.0.0')
    .option('--p2p-port <port>', 'P2P port', '26656')
    .option('--words <phrase>', 'restore the key from this 24-word recovery phrase instead of making a new one')
    .action(async (o: { home: string; moniker: string; network: string; configDir: string; rpcHost: string; rpcPort: string; p2pHost: string; p2pPort: string; words?: string }) => {
      const made = initHome({ home: o.home, moniker: o.moniker, network: o.network, configDir: o.configDir, rpcHost: o.rpcHost, rpcPort: port('rpc-port', o.rpcPort), p2pHost: o.p2pHost, p2pPort: port('p2p-port', o.p2pPort), ...(o.words ? { words: o.words } : {}) }, await catalogue());
      process.stdout.write(JSON.stringify({ ...made, address: made.owner, ...(made.recovery_phrase ? { warning: 'write the recovery phrase down offline: it is the only backup of this validator key' } : {}) }, null, 2) + '\n');
    });

  const genesis = program.command('genesis').description('build a genesis on separate hosts from signed join statements (decisions.md §82)');

  genesis
    .command('join')
    .description('sign this validator\'s join statement into <home>/config/join.json (proof of possession of its key)')
    .requiredOption('--home <dir>', 'the node home (chain init)')
    .requiredOption('--chain-id <id>', 'the chain the genesis is for')
    .requiredOption('--p2p-external <host:port>', 'where the other validators reach this node\'s P2P port')
    .option('--stake <ucoin>', 'self-stake in ucoin (default: the network\'s min_stake)')
    .option('--owner-key <file>', 'a key file that owns the node (it signs the statement too); default: the validator key\'s own .human')
    .addOption(configDirOption())
    .action(async (o: { home: string; chainId: string; p2pExternal: string; stake?: string; ownerKey?: string; configDir: string }) => {
      const join = writeJoin({ home: o.home, chainId: o.chainId, p2pExternal: o.p2pExternal, configDir: o.configDir, ...(o.stake !== undefined ? { stake: ucoinFlag('stake', o.stake) } : {}), ...(o.ownerKey ? { ownerKey: o.ownerKey } : {}) }, await catalogue());
      process.stdout.write(`join statement written for ${join.address}: owner ${join.owner}, stake ${join.stake} ucoin, p2p_endpoint ${join.p2p_endpoint}\n`);
    });

  genesis
    .command('collect')
    .description('build the genesis from every validator\'s join.json (argument order does not matter); nothing is written if one fails a rule')
    .argument('<joins...>', 'join statement files')
    .requiredOption('--chain-id <id>', 'the chain id every statement must name')
    .requiredOption('--out <file>', 'genesis file to write')
    .option('--network <name>', 'network config: test networks fund each owner with 1 000 COIN; min_stake', DEFAULT_NETWORK)
    .addOption(configDirOption())
    .option('--genesis-time <ms>', 'genesis time in milliseconds since the epoch (default: now)')
    .option('--account <address=ucoin>', 'fund an account at genesis (repeatable)', collect, [])
    .option('--param <key=value>', 'a parameter\'s genesis value (repeatable)', collect, [])
    .action(async (joins: string[], o: { chainId: string; out: string; network: string; configDir: string; genesisTime?: string; account: string[]; param: string[] }) => {
      const genesisTime = o.genesisTime === undefined ? Date.now() : /^\d{1,16}$/.test(o.genesisTime) ? Number(o.genesisTime) : NaN;
      const { doc, hash } = collectFiles({ network: o.network, configDir: o.configDir, chainId: o.chainId, genesisTime, accounts: o.account, params: o.param, out: o.out, joinFiles: joins }, await catalogue());
      process.stdout.write(`genesis written to ${o.out}: ${doc.chain_id} ${hash}, ${doc.validators.length} validator(s)\n`);
    });

  genesis
    .command('validate')
    .description('check a genesis against every rule of decisions.md §82; prints "genesis ok <chain_id> <genesis_hash>"')
    .argument('<file>', 'genesis file')
    .option('--network <name>', 'network whose min_stake applies when the genesis params set none', DEFAULT_NETWORK)
    .addOption(configDirOption())
    .action(async (file: string, o: { network: string; configDir: string }) => {
      const { doc, hash } = readGenesis(file, { minStake: networkFacts(o.network, o.configDir, await catalogue()).minStake, provider: nobleProvider });
      process.stdout.write(`genesis ok ${doc.chain_id} ${hash}\n`);
    });

  genesis
    .command('install')
    .description('validate a genesis, copy it to <home>/config/genesis.json, pin its hash and seed every other validator in node.json')
    .argument('<file>', 'genesis file')
    .requiredOption('--home <dir>', 'the node home')
    .addOption(configDirOption())
    .action(async (file: string, o: { home: string; configDir: string }) => {
      const r = installGenesis({ home: o.home, file, configDir: o.configDir }, await catalogue());
      process.stdout.write(`genesis installed in ${r.genesis_file}: ${r.chain_id} ${r.genesis_hash}; seeds ${r.seeds.join(', ') || '(none)'}\n`);
    });

  program
    .command('testnet')
    .description('make N validator homes on one machine by init, join, collect and install (for containers or hosts named <prefix><i> or listed by IP)')
    .requiredOption('--validators <n>', 'number of validators')
    .requiredOption('--chain-id <id>', 'chain id')
    .requiredOption('--out <dir>', 'folder for validator-<i>/ homes and genesis.json')
    .option('--hostname-prefix <prefix>', 'validator i is reached at <prefix><i>')
    .option('--ips <list>', 'comma-separated address of each validator')
    .option('--p2p-port <port>', 'P2P port of every validator', '26656')
    .option('--rpc-port <port>', 'RPC port of every validator', '9933')
    .option('--network <name>', 'network config the validators run', process.env.CHAIN_NETWORK ?? 'testnet')
    .addOption(configDirOption())
    .option('--genesis-time <ms>', 'genesis time in milliseconds since the epoch (default: now)')
    .action(async (o: { validators: string; chainId: string; out: string; hostnamePrefix?: string; ips?: string; p2pPort: string; rpcPort: string; network: string; configDir: string; genesisTime?: string }) => {
      const n = /^\d{1,3}$/.test(o.validators) ? Number(o.validators) : NaN;
      if ((o.hostnamePrefix === undefined) === (o.ips === undefined)) throw new Error('give exactly one of --hostname-prefix and --ips');
      const hosts = o.ips !== undefined ? o.ips.split(',').map((s) => s.trim()).filter(Boolean) : Array.from({ length: Number.isInteger(n) ? n : 0 }, (_, i) => `${o.hostnamePrefix}${i}`);
      const genesisTime = o.genesisTime === undefined ? Date.now() : /^\d{1,16}$/.test(o.genesisTime) ? Number(o.genesisTime) : NaN;
      const r = makeTestnet({ validators: n, chainId: o.chainId, out: o.out, hosts, p2pPort: port('p2p-port', o.p2pPort), rpcPort: port('rpc-port', o.rpcPort), network: o.network, configDir: o.configDir, genesisTime }, await catalogue());
      process.stdout.write(JSON.stringify(r, null, 2) + '\n');
    });
}
