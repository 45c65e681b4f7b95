import { Option } from 'commander';
import { defaultConfigDir } from '../kernel/config/config-dir.js';

/** `--config-dir`, as every command that reads a network config takes it. */
export function configDirOption(): Option {
  return new Option('--config-dir <dir>', "folder of network configs (default: ./configs when present, else the build's own)").default(defaultConfigDir());
}
