// Where the package's own files are, whether running from src/ (tests) or dist/src/ (built).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the email-trust package root (no package.json above src/)');
    dir = parent;
  }
  return dir;
}

export const packageRoot = findRoot();
/** The version package.json gives. */
export const packageVersion = (): string => (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;
export const policiesDir = join(packageRoot, 'policies');
export const schemasDir = join(packageRoot, 'schemas');
/** Files the service hands to browsers as they are (the fingerprint script). */
export const publicDir = join(packageRoot, 'public');
