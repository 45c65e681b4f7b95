import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { defaultRpc } from '../client/node-client.js';
import { runTop } from './driver.js';

/** The RPC URLs of a devnet folder's validators: one per genesis validator, from `basePort` up. */
export function devnetRpcUrls(dir: string, basePort: number): string[] {
  const file = join(dir, 'genesis.json');
  if (!existsSync(file)) throw new Error(`${dir} holds no devnet (no genesis.json)`);
  const validators = (JSON.parse(readFileSync(file, 'utf8')) as { validators: unknown[] }).validators.length;
  return Array.from({ length: validators }, (_, i) => `http://127.0.0.1:${basePort + i}`);
}

export function intervalFlag(text: string): number {
  if (!/^\d{2,6}$/.test(text) || Number(text) < 100) throw new Error(`--interval must be milliseconds, at least 100, got "${text}"`);
  return Number(text);
}

/** Runs until Ctrl-C or SIGTERM, restoring the terminal. */
export async function runTopUntilSignal(urls: readonly string[], intervalMs: number): Promise<void> {
  const stop = new AbortController();
  const abort = (): void => stop.abort();
  process.once('SIGINT', abort);
  process.once('SIGTERM', abort);
  try {
    await runTop({ urls, intervalMs, once: false }, stop.signal);
  } finally {
    process.off('SIGINT', abort);
    process.off('SIGTERM', abort);
  }
}

export function registerTopCommand(program: Command): void {
  program
    .command('top')
    .description('a live view of nodes: address, height, round, last proposer, TPS, mempool, peers, seconds since the last block, or down (decisions.md §88)')
    .option('--rpc <urls>', 'comma-separated node RPC URLs (default: CHAIN_RPC, else the local node)')
    .option('--dir <folder>', 'a devnet folder: one row per validator of its genesis')
    .option('--base-port <port>', 'RPC port of the devnet\'s validator 0', '9933')
    .option('--interval <ms>', 'redraw interval', '1000')
    .option('--once', 'print one frame without ANSI escapes and exit', false)
    .action(async (f: { rpc?: string; dir?: string; basePort: string; interval: string; once: boolean }) => {
      if (f.rpc !== undefined && f.dir !== undefined) throw new Error('give --rpc or --dir, not both');
      const urls = f.dir !== undefined ? devnetRpcUrls(f.dir, Number(f.basePort)) : (f.rpc ?? defaultRpc()).split(',').map((u) => u.trim()).filter(Boolean);
      const intervalMs = intervalFlag(f.interval);
      if (f.once) return runTop({ urls, intervalMs, once: true });
      await runTopUntilSignal(urls, intervalMs);
    });
}
