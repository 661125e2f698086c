// domains.txt from its upstreams (data/SOURCE.md, "Upstreams"): the reviewed disposable-email-domains
// blocklist, then mailchecker's list, each one domain per line, combined by build.mjs's rule and its guard
// (../disposable-guard.ts).
// The third family of the build (ivolo's lists) has no maintained upstream, so its vote is the list loaded
// now: a domain only mailchecker names stays when the loaded list has it (the build found two families),
// and is not added when it does not.
import { disposableDomains } from '../disposable-domains.js';
import { disposableGuard } from '../disposable-guard.js';
import type { UpstreamCompiler } from '../plugin-data.js';

const DOMAIN = /^[a-z0-9-]+(?:\.[a-z0-9-]+)+$/;

/** The domains of one body, lower-cased; throws on a line that is no domain (a truncated or wrong file). */
function domainLines(body: { url: string; text: string }): Set<string> {
  const domains = new Set<string>();
  body.text.split('\n').forEach((raw, i) => {
    const line = raw.trim().toLowerCase();
    if (line === '' || line.startsWith('#')) return;
    if (!DOMAIN.test(line)) throw new Error(`${body.url}: line ${i + 1}: "${line.slice(0, 80)}" is not a domain`);
    domains.add(line);
  });
  return domains;
}

export const UPSTREAM_FORMATS: Readonly<Record<string, UpstreamCompiler>> = {
  'disposable-votes': (bodies) => {
    const [reviewedBody, mailcheckerBody] = bodies;
    if (!reviewedBody || !mailcheckerBody || bodies.length !== 2)
      throw new Error('disposable-votes: two bodies expected (the reviewed list, then mailchecker)');
    const reviewed = domainLines(reviewedBody);
    const mailchecker = domainLines(mailcheckerBody);
    const guard = disposableGuard();
    const kept = new Set<string>();
    for (const domain of reviewed) if (guard(domain, true) === null) kept.add(domain);
    for (const domain of mailchecker) if (!reviewed.has(domain) && disposableDomains.has(domain) && guard(domain, false) === null) kept.add(domain);
    if (kept.size === 0) throw new Error(`${reviewedBody.url}: no entries`);
    return [...kept].sort();
  },
};
