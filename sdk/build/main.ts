import { buildCryptoModule, repoRoot } from './crypto-module.js';

// `npm run build:web`, first step: the browser crypto module (decisions.md §86).
const { path, size, manifest } = await buildCryptoModule(repoRoot());
process.stdout.write(`chain-crypto ${manifest.version}: ${path} (${size} bytes minified, ${manifest.built_from.bundler})\n`);
