import type { Command } from 'commander';
import type { CatalogueSource } from './catalogue.js';
import type { AuditFlags } from './audit/run-audit.js';
import { configDirOption } from './config-dir-option.js';

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** `chain audit --data-dir <dir>`: replays a stopped node's stored chain from genesis and reports the first divergence (cli/audit/replay-audit.ts). */
export function registerAuditCommand(program: Command, catalogue: CatalogueSource): void {
  program
    .command('audit')
    .description('replay a stored chain from genesis through the node\'s own execution: every block, commit certificate, state root and the supply; prints the first divergence and exits 1 (run on a stopped node\'s data directory, or a copy)')
    .requiredOption('--data-dir <dir>', 'the data directory of the chain to audit (its chain/, tree/ and txtext/)')
    .option('--home <dir>', 'node home whose config and genesis the chain was run with (also CHAIN_HOME)')
    .option('--network <name>', 'network config whose plugins the chain ran (default: CHAIN_NETWORK, else the home\'s node.json, else devnet)')
    .addOption(configDirOption())
    .option('--genesis <file>', 'genesis document (default: the config\'s genesis_file)')
    .option('--enable-plugin <name>', 'a plugin the chain ran with --enable-plugin (repeatable)', collect, [])
    .option('--disable-plugin <name>', 'a plugin the chain ran with --disable-plugin (repeatable)', collect, [])
    .action(async (f: AuditFlags) => {
      process.exitCode = await (await import('./audit/run-audit.js')).runAudit(f, await catalogue());
    });
}

