import { startDevnet } from '../devnet/launcher.js';

export async function runDevnetCommand(o: { validators: string; dir: string; reset: boolean; basePort: string; p2pBasePort: string; gatewayPort: string; gateway: boolean; enablePlugin: string[]; disablePlugin: string[] }): Promise<void> {
  const validators = Number(o.validators);
  if (!Number.isInteger(validators) || validators < 1 || validators > 64) throw new Error('--validators must be an integer from 1 to 64');
  const devnet = await startDevnet({ validators, dir: o.dir, reset: o.reset, basePort: Number(o.basePort), p2pBasePort: Number(o.p2pBasePort), gatewayPort: o.gateway ? Number(o.gatewayPort) : null, enablePlugins: o.enablePlugin, disablePlugins: o.disablePlugin });
  const stop = (): void => {
    process.stdout.write('stopping devnet...\n');
    devnet.stop().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  for (const [i, child] of devnet.nodes.entries()) {
    const name = i < validators ? `validator-${i}` : 'gateway';
    child.once('exit', (code, signal) => process.stdout.write(`${name} exited (${signal ?? code})\n`));
  }
}
