import pkg from './package.json' with { type: 'json' };

/** The SDK package's version: the browser module's `version` and manifest (decisions.md §86). */
export const SDK_VERSION: string = pkg.version;
export const SDK_PACKAGE: string = pkg.name;
