// domains.txt from its upstreams (data/SOURCE.md, "Upstreams"): the reviewed disposable-email-domains
// blocklist and mailchecker's list, each one domain per line, then tompec's index.json (the ivolo family's
// maintained list, a JSON array), combined by build.mjs's rule and its guard (../disposable-guard.ts, which
// applies the build's own disposable-guard-rule.mjs).
// Two lists of the ivolo family (ivolo's, wesbos's) have no maintained upstream, and an update cannot tell a
// fresh tompec entry (rule 3) from an old one without them: the list loaded now stands in for what it cannot
// re-check. So a domain only mailchecker or only tompec names now stays when the loaded list has it (the
// build counted it), and is not added when it does not; one both name is added.
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

/**
 * The domains of a JSON array of names (tompec's index.json), lower-cased. A name with a non-ASCII letter
 * (an internationalised name written in Unicode, `instágram.com`) is skipped, as the build skips it; anything
 * else that is no domain, or a body that is no array of strings (a truncated file), refuses the download.
 */
function domainArray(body: { url: string; text: string }): Set<string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.text);
  } catch (error) {
    throw new Error(`${body.url}: not JSON (${(error as Error).message})`);
  }
  if (!Array.isArray(parsed)) throw new Error(`${body.url}: a JSON array of domains expected`);
  const domains = new Set<string>();
  parsed.forEach((entry: unknown, i) => {
    if (typeof entry !== 'string') throw new Error(`${body.url}: entry ${i + 1} is not a string`);
    const name = entry.trim().toLowerCase();
    if (DOMAIN.test(name)) domains.add(name);
    else if ([...name].some((c) => c.charCodeAt(0) > 0x7f)) return;
    else throw new Error(`${body.url}: entry ${i + 1}: "${name.slice(0, 80)}" is not a domain`);
  });
  return domains;
}

export const UPSTREAM_FORMATS: Readonly<Record<string, UpstreamCompiler>> = {
  'disposable-votes': (bodies) => {
    const [reviewedBody, mailcheckerBody, tompecBody] = bodies;
    if (!reviewedBody || !mailcheckerBody || !tompecBody || bodies.length !== 3)
      throw new Error("disposable-votes: three bodies expected (the reviewed list, mailchecker, then tompec's index.json)");
    const reviewed = domainLines(reviewedBody);
    const mailchecker = domainLines(mailcheckerBody);
    const tompec = domainArray(tompecBody);
    const guard = disposableGuard();
    const kept = new Set<string>();
    // 1. The reviewed list.
    for (const domain of reviewed) if (guard(domain, true) === null) kept.add(domain);
    // 2. Two families: mailchecker and the ivolo family (tompec now, or the loaded list for the two frozen lists).
    for (const domain of mailchecker) if ((tompec.has(domain) || disposableDomains.has(domain)) && guard(domain, false) === null) kept.add(domain);
    // 3. tompec alone: what the build counted (the loaded list has it) and tompec still names.
    for (const domain of tompec) if (!mailchecker.has(domain) && disposableDomains.has(domain) && guard(domain, false) === null) kept.add(domain);
    if (kept.size === 0) throw new Error(`${reviewedBody.url}: no entries`);
    return [...kept].sort();
  },
};
