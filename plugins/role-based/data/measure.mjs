// Figures for issues 16 and 51: how much of role-based-email-addresses (devDependency, MIT) roles.txt covers,
// how many common first names it would flag (every locale of @faker-js/faker 10.6.0, MIT), and its recall on
// reserved-email-addresses-list (MIT, not shipped nor a dependency: installed aside, `--reserved=DIR`).
// Usage (from the repository root):
//   node plugins/role-based/data/measure.mjs [checkout root] [--list] [--reserved=DIR/node_modules/reserved-email-addresses-list]
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { allLocales } from '@faker-js/faker';

const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const root = resolve(args.find((arg) => !arg.startsWith('--')) ?? fileURLToPath(new URL('../../..', import.meta.url)));
const roles = new Set(readFileSync(resolve(root, 'plugins/role-based/data/roles.txt'), 'utf8').split('\n').filter(Boolean));
/** The plugin's compared form (no quotes or plus tag in these lists). */
const key = (name) => name.toLowerCase().replace(/[._-]/g, '');

const packaged = require('role-based-email-addresses');
const covered = packaged.filter((name) => roles.has(key(name)));
const names = new Map(); // compared form -> locales
for (const [locale, definitions] of Object.entries(allLocales)) {
  const first = definitions.person?.first_name ?? {};
  for (const name of [...(first.female ?? []), ...(first.male ?? []), ...(first.generic ?? [])])
    names.set(key(name), [...(names.get(key(name)) ?? []), locale]);
}
const flagged = [...names.keys()].filter((name) => roles.has(name));
console.log(`checkout: ${root}`);
console.log(`roles.txt: ${roles.size} roles`);
console.log(`role-based-email-addresses: ${packaged.length} names, covered ${covered.length} (${((100 * covered.length) / packaged.length).toFixed(1)} %)`);
console.log(
  `first names (faker-js, ${Object.keys(allLocales).length} locales, ${names.size} distinct): flagged ${flagged.length}${flagged.length ? `: ${flagged.map((n) => `${n} (${names.get(n).join(', ')})`).join(' ')}` : ''}`,
);
if (args.includes('--list')) console.log(`not covered: ${packaged.filter((name) => !roles.has(key(name))).join(' ')}`);

/**
 * Recall on reserved-email-addresses-list: the names of its three lists (index, admin-list, no-reply-list),
 * NFKC, in compared form, ASCII only (its homoglyph spellings, `аccount` with a Cyrillic а, are a gap of their
 * own: README), and without the digit spellings it derives from another of its names (`acc0unt`, `rep1y`).
 */
const reservedDir = args.find((arg) => arg.startsWith('--reserved='))?.slice('--reserved='.length);
if (reservedDir === undefined || !existsSync(resolve(reservedDir, 'index.json'))) {
  console.log(
    'reserved-email-addresses-list: not measured (npm install --prefix /tmp/reserved reserved-email-addresses-list@2.0.16, then --reserved=/tmp/reserved/node_modules/reserved-email-addresses-list)',
  );
} else {
  const version = JSON.parse(readFileSync(resolve(reservedDir, 'package.json'), 'utf8')).version;
  const spelled = new Set();
  for (const file of ['index.json', 'admin-list.json', 'no-reply-list.json'])
    for (const name of JSON.parse(readFileSync(resolve(reservedDir, file), 'utf8'))) {
      const k = key(name.normalize('NFKC'));
      if (/^[a-z0-9]+$/.test(k)) spelled.add(k);
    }
  const undigit = (name) => [name.replace(/0/g, 'o').replace(/1/g, 'l'), name.replace(/0/g, 'o').replace(/1/g, 'i')];
  const reserved = [...spelled].filter((name) => !(/[01]/.test(name) && undigit(name).some((plain) => plain !== name && spelled.has(plain))));
  const hits = reserved.filter((name) => roles.has(name));
  console.log(
    `reserved-email-addresses-list ${version}: ${reserved.length} names, covered ${hits.length} (${((100 * hits.length) / reserved.length).toFixed(1)} %); missed: ${reserved.filter((name) => !roles.has(name)).join(' ')}`,
  );
}
