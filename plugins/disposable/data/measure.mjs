// Reference figures for the disposable check: recall against maintained lists the service does not ship,
// and false positives on the free-provider list and the privacy relays. Runs the built service (dist/) of
// the checkout given by --root, so that an older commit can be measured the same way (SOURCE.md).
//
//   node plugins/disposable/data/measure.mjs --root . --lists /tmp/lists [--json] [--flagged FILE]
//
// --lists holds the npm packages unpacked by name (tar xzf x.tgz → <name>/package/…): disposable-email-domains,
// mailchecker, burner-email-providers, fakefilter. The free-provider and never-disposable lists are read from
// this checkout (the one the script is in), so both commits are judged against the same truth. --flagged
// writes every flagged domain, one per line, to compare two commits with diff.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: { root: { type: 'string', default: '.' }, lists: { type: 'string' }, json: { type: 'boolean' }, flagged: { type: 'string' } },
});
if (!args.lists) throw new Error('--lists DIR is required (see the comment at the top)');
const root = resolve(args.root);
const here = (file) => new URL(`./${file}`, import.meta.url);
const dist = (path) => import(pathToFileURL(join(root, 'dist', path)).href);

const lines = (text) =>
  text
    .split('\n')
    .map((l) => l.trim().toLowerCase())
    .filter((l) => l && !l.startsWith('#'));
const pkg = (name, file) => join(args.lists, name, 'package', file);
const json = (path) => JSON.parse(readFileSync(path, 'utf8'));
const version = (name) => json(pkg(name, 'package.json')).version;

function mailcheckerList() {
  const source = readFileSync(pkg('mailchecker', 'platform/node/index.js'), 'utf8');
  const start = source.indexOf('new Set(') + 'new Set('.length;
  return JSON.parse(source.slice(start, source.indexOf('])', start) + 1));
}

const wildcards = json(pkg('disposable-email-domains', 'wildcard.json'));
const references = {
  [`disposable-email-domains ${version('disposable-email-domains')} index.json`]: json(pkg('disposable-email-domains', 'index.json')),
  [`disposable-email-domains ${version('disposable-email-domains')} wildcard.json (as x.<domain>)`]: wildcards.map((d) => `x.${d}`),
  [`mailchecker ${version('mailchecker')}`]: mailcheckerList(),
  [`burner-email-providers ${version('burner-email-providers')}`]: lines(readFileSync(pkg('burner-email-providers', 'emails.txt'), 'utf8')),
  [`fakefilter ${version('fakefilter')}`]: Object.keys(json(pkg('fakefilter', 'json/data.json')).domains),
};
const providers = json(new URL('../../free-provider/data/providers.json', import.meta.url));
const never = lines(readFileSync(here('never-disposable.txt'), 'utf8'));
const negatives = {
  'free-provider providers.json': [...new Set(Object.values(providers).flatMap((p) => p.domains))],
  'never-disposable.txt (relays and big providers)': never,
};

const { registry } = await dist('plugins/index.js');
const { FactCatalog } = await dist('src/engine/catalog.js');
const { compilePolicy } = await dist('src/policy/compile.js');
const { parsePolicy } = await dist('src/policy/load.js');
const { evaluate } = await dist('src/policy/evaluate.js');
const { noHistory } = await dist('src/engine/no-history.js');
const catalog = new FactCatalog(registry);
const policy = compilePolicy(
  'measure',
  parsePolicy('measure.json', JSON.stringify({ version: '1', default_action: 'allow', checks: { disposable_domain: { mode: 'hard', action: 'block' } } })),
  catalog,
);
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
    if (v.flagged && counts.examples.length < 10) counts.examples.push(domain);
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
