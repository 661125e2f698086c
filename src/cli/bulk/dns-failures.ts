// The distinct domains whose DNS questions failed in a bulk run (timeouts, SERVFAIL, or resolvers that fail
// their self-check): the summary says how many, since their rows carry unknown DNS facts, not verdicts on
// them. A count kept to MAX_KEPT names: past it the run says "at least".
import type { DnsAnswer, NetworkAccess } from '../../engine/plugin.js';

const MAX_KEPT = 100_000;

export class DnsFailures {
  private readonly domains = new Set<string>();
  private capped = false;

  /** The request's network, its DNS answers watched. */
  watch(access: NetworkAccess): NetworkAccess {
    const note = <T>(domain: string, answer: DnsAnswer<T>): DnsAnswer<T> => {
      if (answer.status === 'error') this.add(domain);
      return answer;
    };
    const { dns } = access;
    return {
      ...access,
      dns: {
        mx: (domain) => dns.mx(domain).then((answer) => note(domain, answer)),
        a: (domain) => dns.a(domain).then((answer) => note(domain, answer)),
        aaaa: (domain) => dns.aaaa(domain).then((answer) => note(domain, answer)),
      },
    };
  }

  private add(domain: string): void {
    if (this.domains.size < MAX_KEPT) this.domains.add(domain);
    else if (!this.domains.has(domain)) this.capped = true;
  }

  /** `12 distinct domains`, or `at least 100,000 distinct domains`; null when none failed. */
  summary(format: (n: number) => string): string | null {
    if (this.domains.size === 0) return null;
    return `${this.capped ? 'at least ' : ''}${format(this.domains.size)} distinct domain${this.domains.size === 1 ? '' : 's'}`;
  }
}
