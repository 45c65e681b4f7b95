import { Command, Option } from 'commander';
import type { NodeFlags } from './node-command.js';
import { registerKeysCommands } from './keys-command.js';
import { registerOpCommand } from './op-command.js';
import { registerRelayerCommand } from './relayer-command.js';
import { registerRelayShardsCommand } from './relay-shards/command.js';
import { registerOperatorCommands } from './operator-commands.js';
import { registerWalletCommands } from './wallet-commands.js';
import { registerTopCommand } from './top/command.js';
import { registerMcpCommand } from './mcp-command.js';
import { registerAuditCommand } from './audit-command.js';
import type { DevnetFlags } from './devnet-command.js';
import { runDevnetToggle, type DevnetToggleFlags } from './devnet-toggle.js';
import { printConfigSchema } from './schema-command.js';
import type { CatalogueSource } from './catalogue.js';
import { configDirOption } from './config-dir-option.js';

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/**
 * `chain`: one binary, one verb per process profile (design.md "Processes"). The catalogue is
 * which plugins this build has: the shipped one (plugins/index.ts), or a test build's.
 *
 * The catalogue is loaded only by the verbs that need it, and the heavy verbs' work (node, devnet,
 * gateway, audit, mcp) only when they run: `chain balance` starts in ~0.4 s where importing every
 * plugin first took ~2 s.
 */
export function runChain(argv: readonly string[], catalogue: CatalogueSource): void {
const program = new Command('chain').description('post-quantum proof-of-stake ledger node').showHelpAfterError().enablePositionalOptions();

program
  .command('node')
  .description('run a validator / full node')
  .option('--home <dir>', 'node home (chain init): its key, config/genesis.json, config/node.json and data/ (also CHAIN_HOME)')
  .option('--network <name>', 'network config to load from configs/<name>.json (default: CHAIN_NETWORK, else the home\'s node.json, else devnet)')
  .addOption(configDirOption())
  .option('--data-dir <dir>', 'where blocks and state are stored')
  .option('--genesis-hash <0x…>', 'the genesis hash this node must run; start-up stops on any other (also CHAIN_GENESIS_HASH, node.json genesis_hash)')
  .option('--genesis <file>', 'genesis document')
  .option('--key <file>', 'validator key file (chain keys generate --node <name>)')
  .option('--rpc-host <host>', 'RPC listen address')
  .option('--rpc-port <port>', 'RPC port (default 9933)')
  .option('--p2p-port <port>', 'P2P port')
  .option('--p2p-host <host>', 'P2P listen address')
  .option('--p2p-external <host:port>', 'P2P address advertised to peers (also CHAIN_P2P_EXTERNAL)')
  .option('--seeds <list>', 'comma-separated P2P seeds: host:port or node_id@host:port')
  .option('--snapshot-from <url>', 'start an empty node from the state snapshot of this node RPC URL (verified by the certificate of the block after it against the genesis validators)')
  .option('--enable-plugin <name>', 'enable a plugin of the catalogue (repeatable); appended to the network\'s list if absent', collect, [])
  .option('--disable-plugin <name>', 'disable a plugin of the network\'s list (repeatable)', collect, [])
  .addOption(new Option('--log-level <level>', 'log level').choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']))
  .action(async (f: NodeFlags) => (await import('./node-command.js')).runNodeCommand(f, await catalogue()));

registerKeysCommands(program.command('keys').description('create and inspect ML-DSA-65 keys'));

registerOpCommand(program, catalogue);

registerRelayerCommand(program, catalogue);

registerRelayShardsCommand(program);

registerOperatorCommands(program, catalogue);

registerAuditCommand(program, catalogue);

registerWalletCommands(program);

registerTopCommand(program);
registerMcpCommand(program);

const devnet = program
  .command('devnet')
  .description('run a local test network of N validators on loopback')
  // `devnet enable <plugin> --dir …`: options after the verb are the verb's own.
  .enablePositionalOptions()
  .option('--validators <n>', 'number of validators (per shard with --shards)', '4')
  .option('--shards <n>', 'shards, each with --validators validators and one genesis (decisions.md §77; 1 is the unsharded devnet)', '1')
  .option('--dir <dir>', 'folder holding every node\'s keys and data', '.devnet')
  .option('--reset', 'delete the folder first and start a new chain', false)
  .option('--chain-id <id>', 'chain id of a new folder\'s genesis (1-64 of a-z, 0-9, -; default devnet-<6 random hex>); a folder of another chain is refused')
  .option('--base-port <port>', 'RPC port of validator 0 (validator i listens on base + i)', '9933')
  .option('--p2p-base-port <port>', 'P2P port of validator 0 (validator i listens on base + i)', '26656')
  .option('--gateway-port <port>', 'gateway port', '3000')
  .option('--no-gateway', 'start the validators only')
  .option('--no-relay', 'with --shards above 1: start no chain relay-shards (cross-shard transfers then wait for one)')
  .option('--watch', 'show the validators live (chain top) instead of returning to the logs', false)
  .option('--enable-plugin <name>', 'switch a plugin on for this devnet (repeatable)', collect, [])
  .option('--disable-plugin <name>', 'switch a plugin off for this devnet (repeatable)', collect, [])
  .action(async (f: DevnetFlags) => (await import('./devnet-command.js')).runDevnetCommand(f, await catalogue()));

// A feature switched on or off on a running devnet by governance (decisions.md §26).
for (const [verb, change] of [['enable', 'activate'], ['disable', 'retire']] as const) {
  devnet
    .command(`${verb} <plugin>`)
    .description(`${verb} a state plugin on the running devnet: files a plugin:<name> proposal, has every validator vote, prints the height it switches at`)
    .option('--dir <dir>', 'the devnet\'s folder (its validators\' key files are in <dir>/keys)', '.devnet')
    .option('--base-port <port>', 'RPC port of validator 0', '9933')
    .option('--voting-duration <blocks>', 'voting window (at least 100 blocks)', '100')
    .option('--wait', 'return once the plugin has switched', false)
    .action(async (plugin: string, f: DevnetToggleFlags) => {
      await runDevnetToggle(change, plugin, f);
    });
}

program.command('gateway').description('run the public gateway (REST proxy, /ws events) in front of a node; configured by PORT, NODE_RPC_URL, ... (plugins/gateway/README.md)').option('--network <name>', 'network config whose service plugins to load', process.env.CHAIN_NETWORK ?? 'devnet').addOption(configDirOption()).action(async (f: { network: string; configDir: string }) => (await import('./gateway-command.js')).runGatewayCommand(f, await catalogue()));

program.command('config-schema').description('print the JSON Schema of a config file (a network file, a home\'s node.json), for editors').action(printConfigSchema);

program.parseAsync([...argv]).catch((err: unknown) => {
  process.stderr.write(`chain: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
}
