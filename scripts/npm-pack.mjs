// A pinned npm package's files for a data build, without installing it: `npm pack` into <lists>/<name>,
// unpacked there, and reused while its version matches (plugins/*/data/build.mjs, coverage.mjs).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** <lists>/<name>/package, packed and unpacked when missing or of another version. */
export function packed(lists, name, version) {
  const dir = join(lists, name);
  const pkg = join(dir, 'package');
  if (existsSync(join(pkg, 'package.json')) && JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')).version === version) return pkg;
  mkdirSync(dir, { recursive: true });
  const tgz = execFileSync('npm', ['pack', `${name}@${version}`, '--silent', '--pack-destination', dir], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .pop();
  execFileSync('tar', ['xzf', join(dir, tgz), '-C', dir]);
  return pkg;
}
