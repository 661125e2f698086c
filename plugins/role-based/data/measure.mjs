// Figures for issue 16: how much of role-based-email-addresses (devDependency, MIT) roles.txt covers,
// and how many common first names it would flag (every locale of @faker-js/faker 10.6.0, MIT).
// Usage (from the repository root): node plugins/role-based/data/measure.mjs [checkout root] [--list]
import { readFileSync } from 'node:fs';
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
