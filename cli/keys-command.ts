import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import { makeKeyFile, readKeyFile, writeKeyFile } from '../kernel/crypto/keyfile.js';
import { newMnemonic, seedFromMnemonic } from '../kernel/crypto/mnemonic.js';
import { nobleProvider } from '../kernel/crypto/noble-provider.js';

function print(obj: Record<string, unknown>): void {
  process.stdout.write(JSON.stringify(obj, null, 2) + '\n');
}

export function registerKeysCommands(keys: Command): void {
  keys
    .command('generate')
    .description('create a key pair from a fresh 24-word recovery phrase; writes the key file with mode 0600')
    .option('--node <name>', 'make it a validator consensus key for chain:<name>.node')
    .option('--out <file>', 'key file to write (refuses to overwrite)')
    .option('--random-seed', 'use 32 random bytes instead of a recovery phrase', false)
    .action((o: { node?: string; out?: string; randomSeed: boolean }) => {
      const words = o.randomSeed ? undefined : newMnemonic();
      const seed = words ? seedFromMnemonic(words) : new Uint8Array(randomBytes(32));
      const { file } = makeKeyFile(nobleProvider, seed, o.node);
      if (o.out) writeKeyFile(o.out, file);
      print({ address: file.address, ...(file.node_address ? { node_address: file.node_address } : {}), ...(o.out ? { key_file: o.out } : {}), ...(words ? { recovery_phrase: words, warning: 'write the phrase down offline; anyone with it controls the key' } : {}) });
    });

  keys
    .command('show')
    .description('print the addresses and public key of a key file')
    .requiredOption('--file <file>', 'key file')
    .option('--address', 'print the address alone (for scripts: chain send --to "$(chain keys show --file bob.json --address)")', false)
    .action((o: { file: string; address: boolean }) => {
      const { file } = readKeyFile(o.file, nobleProvider);
      if (o.address) return void process.stdout.write(`${file.address}\n`);
      print({ address: file.address, ...(file.node_address ? { node_address: file.node_address } : {}), public_key: file.public_key });
    });

  keys
    .command('from-mnemonic')
    .description('derive the key pair and address of a recovery phrase')
    .requiredOption('--words <phrase>', 'the 24-word BIP-39 phrase (quote it)')
    .option('--node <name>', 'make it a validator consensus key for chain:<name>.node')
    .option('--out <file>', 'key file to write (refuses to overwrite)')
    .action((o: { words: string; node?: string; out?: string }) => {
      const { file } = makeKeyFile(nobleProvider, seedFromMnemonic(o.words), o.node);
      if (o.out) writeKeyFile(o.out, file);
      print({ address: file.address, ...(file.node_address ? { node_address: file.node_address } : {}), public_key: file.public_key, ...(o.out ? { key_file: o.out } : {}) });
    });
}
