// Builds roles.txt: role local parts from role-based-email-addresses plus the mailbox names of RFC 2142,
// reviewed (below), each in its compared form: lower case, without ".", "-" and "_".
// Run from the repository root: node plugins/role-based/data/build.mjs
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
const packaged = require('role-based-email-addresses');

/** RFC 2142, sections 3-5: business, network operations and service mailboxes. */
const RFC_2142 = [
  'info',
  'marketing',
  'sales',
  'support',
  'abuse',
  'noc',
  'security',
  'postmaster',
  'hostmaster',
  'usenet',
  'news',
  'webmaster',
  'www',
  'uucp',
  'ftp',
];
/** Common role mailboxes the package lacks. */
const ADDED = ['bounce', 'bounces', 'dmarc', 'mailer-daemon', 'no-reply', 'root'];
/**
 * Entries that are not roles, or that name people as often as roles: given names and surnames
 * (an address like paris@ or sydney@ is usually a person), keyboard test strings and bare numbers
 * (the fraud-pattern and local-part checks judge those), and two-letter entries other than hi, hq, hr, it,
 * pr and qa (two letters are as often a person's initials).
 */
const REMOVED = new Set([
  ...['alexa', 'denver', 'gardner', 'india', 'paris', 'sydney', 'aaa', 'abc', 'asd', 'asdasd', 'asdf'],
  // Issue 11 review (2026-11-24): a household's or one owner's own mailbox, not an organisation's function
  // or group: family@smiths.example and home@ are the family's inbox, user@ the sole user of a personal
  // domain. Kept as roles: users (a list), team, mail (a domain's general inbox), test and testing (no person).
  ...['family', 'home', 'user'],
]);
const TWO_LETTER_ROLES = new Set(['hi', 'hq', 'hr', 'it', 'pr', 'qa']);

/** The compared form; the plugin applies the same after cutting the plus tag. */
const key = (name) => name.toLowerCase().replace(/[._-]/g, '');

const roles = new Set();
const dropped = [];
for (const name of [...packaged, ...RFC_2142, ...ADDED]) {
  const k = key(name);
  const keep = !REMOVED.has(k) && !/^[0-9]+$/.test(k) && (k.length > 2 || TWO_LETTER_ROLES.has(k));
  if (keep) roles.add(k);
  else dropped.push(name);
}
for (const name of RFC_2142) if (!roles.has(key(name))) throw new Error(`RFC 2142 name ${name} was dropped`);
const sorted = [...roles].sort();
writeFileSync(join(here, 'roles.txt'), `${sorted.join('\n')}\n`);
console.log(`roles.txt: ${sorted.length} roles (${packaged.length} packaged names); dropped: ${[...new Set(dropped)].join(' ')}`);
