// Writes rdap-dns.json (RFC 9224 bootstrap, DNS space) from IANA's dns.json or from a copy of its
// `services` array (freewhois' tlds.json), checked and sorted so a refresh is a reviewable diff.
//   node src/network/data/build-rdap-bootstrap.mjs <dns.json or tlds.json> [publication date]
import { readFileSync, writeFileSync } from 'node:fs';

const [source, publication] = process.argv.slice(2);
if (!source) {
  console.error('usage: node src/network/data/build-rdap-bootstrap.mjs <dns.json | tlds.json> [publication]');
  process.exit(2);
}
const parsed = JSON.parse(readFileSync(source, 'utf8'));
const services = Array.isArray(parsed) ? parsed : parsed.services;
if (!Array.isArray(services)) throw new Error(`${source}: no "services" array`);

const out = [];
const seen = new Set();
for (const service of services) {
  const [entries, urls] = service;
  if (!Array.isArray(entries) || !Array.isArray(urls) || urls.length === 0) throw new Error(`bad service ${JSON.stringify(service)}`);
  for (const url of urls) {
    const u = new URL(url);
    if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error(`bad URL ${url}`);
  }
  const names = entries.map((e) => String(e).toLowerCase()).sort();
  for (const name of names) {
    if (!/^[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(name)) throw new Error(`bad entry ${name}`);
    if (seen.has(name)) throw new Error(`entry ${name} listed twice`);
    seen.add(name);
  }
  out.push([names, urls.map((url) => (url.endsWith('/') ? url : `${url}/`))]);
}
out.sort((a, b) => (a[0][0] < b[0][0] ? -1 : 1));

const description = 'RDAP bootstrap file for Domain Name System registrations (copy of IANA dns.json; see SOURCE.md)';
const head = { description, publication: publication ?? (Array.isArray(parsed) ? null : parsed.publication) };
// One service per line, so a refresh shows as changed lines.
const lines = out.map((service) => `  ${JSON.stringify(service)}`).join(',\n');
const target = new URL('./rdap-dns.json', import.meta.url);
writeFileSync(target, `{${JSON.stringify(head).slice(1, -1)},\n "services": [\n${lines}\n ],\n "version": "1.0"\n}\n`);
console.log(`wrote ${target.pathname}: ${out.length} services, ${seen.size} entries`);
