// The popular mailbox domains typo detection corrects towards: read once from the repository's data folder.
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

/** One lower-case ASCII domain per line, in the file's order (most used first); `#` lines are comments. */
export function readPopularDomains(): string[] {
  const text = readFileSync(join(packageRoot(), 'plugins', 'typo', 'data', 'popular-domains.txt'), 'utf8');
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}
