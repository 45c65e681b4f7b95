import type { BuildOptions } from 'esbuild';

/**
 * The esbuild options every browser bundle of the repository shares: the crypto module
 * (`crypto-module.ts`, decisions.md §86) and the explorer's page (`plugins/explorer/build.ts`,
 * §88). One ES module for current browsers, minified, without legal comments, in UTF-8, with a
 * metafile (sizes, bundled packages). `platform: 'browser'`: a Node built-in anywhere in the graph
 * fails the build, since the bundle must run in a page.
 */
export const BROWSER_BUNDLE = {
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  legalComments: 'none',
  charset: 'utf8',
  metafile: true,
} as const satisfies BuildOptions;
