// This plugin's data files: read once, at module load, from the repository's plugins/government/data/.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder holding package.json: this module runs from plugins/ (tests) and from dist/plugins/ (built). */
function packageRoot(): string {
  const start = dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${start}`);
  }
}

/** A newline-separated list (one lower-case ASCII name per line; blank lines and # comments skipped). */
export function readList(file: string): Set<string> {
  const text = readFileSync(join(packageRoot(), 'plugins', 'government', 'data', file), 'utf8');
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const name = line.trim();
    if (name !== '' && !name.startsWith('#')) names.add(name);
  }
  return names;
}
