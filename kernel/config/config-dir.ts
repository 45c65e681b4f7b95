import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The network configs this build ships (`configs/` of the package, beside `dist/`), wherever the process runs. */
export const SHIPPED_CONFIG_DIR = fileURLToPath(new URL('../../../configs', import.meta.url));

/**
 * Where network configs are read from when no `--config-dir` names a folder: `configs/` of the
 * working directory when it has one (a checkout, an operator's own folder), else the build's own,
 * so an installed `chain` runs from any directory (a service unit, `npm link`).
 */
export function defaultConfigDir(cwd: string = process.cwd()): string {
  const local = resolve(cwd, 'configs');
  return existsSync(local) ? local : SHIPPED_CONFIG_DIR;
}
