import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every module specifier of static imports (type-only ones included), re-exports and dynamic imports. */
export function importsOf(text: string): string[] {
  const specs: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]/g)) specs.push(m[1]!);
  for (const m of text.matchAll(/(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g)) specs.push(m[1]!);
  for (const m of text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)) specs.push(m[1]!);
  return specs;
}

/** The TypeScript sources under dir, sorted, so a test reads them in the same order everywhere. */
export function typeScriptSources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) typeScriptSources(p, out);
    else if (name.endsWith('.ts')) out.push(p);
  }
  return out;
}
