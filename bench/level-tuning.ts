import type { LevelTuning } from '../kernel/store/level-store.js';

/** The LevelTuning fields `--level` may set, and which take a boolean (the others a positive integer). */
const LEVEL_FIELDS: Readonly<Record<keyof LevelTuning, 'boolean' | 'integer'>> = {
  compression: 'boolean',
  cacheSize: 'integer',
  writeBufferSize: 'integer',
  blockSize: 'integer',
  maxFileSize: 'integer',
  maxOpenFiles: 'integer',
};

/**
 * `--level name=value,…` as LevelTuning. Only LevelTuning's fields are taken, each checked: any
 * other name would reach classic-level's options unchecked (a misspelt one silently ignored).
 */
export function parseLevelTuning(spec: string): LevelTuning {
  const tuning: { -readonly [K in keyof LevelTuning]: LevelTuning[K] } = {};
  for (const item of spec.split(',').filter((x) => x !== '')) {
    const [name, text, extra] = item.split('=');
    if (name === undefined || text === undefined || extra !== undefined) throw new Error(`--level ${spec}: expected name=value,…`);
    if (!Object.hasOwn(LEVEL_FIELDS, name)) throw new Error(`--level: unknown option ${name} (one of ${Object.keys(LEVEL_FIELDS).join(', ')})`);
    const field = name as keyof LevelTuning;
    if (LEVEL_FIELDS[field] === 'boolean') {
      if (text !== 'true' && text !== 'false') throw new Error(`--level: ${name} takes true or false`);
      tuning.compression = text === 'true';
    } else {
      const value = Number(text);
      if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`--level: ${name} takes a positive integer`);
      tuning[field as Exclude<keyof LevelTuning, 'compression'>] = value;
    }
  }
  return tuning;
}
