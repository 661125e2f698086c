// The deliverability score: four parts (MX, A/AAAA, domain age, subdomain), each a fraction of its weight
// or unknown, and whether mail can be routed to the domain at all. Pure functions of the evidence.

export interface Evidence {
  mxStatus: string | null;
  aFallback: string | null;
  aCount: number | null;
  aaaaCount: number | null;
  hasNullMx: boolean | null;
  mxHostsAreIps: boolean | null;
  ageSignal: string | null;
  ageDays: number | null;
  subdomainCount: number | null;
  randomSubdomain: string | null;
  uuidSubdomain: string | null;
  deepNesting: string | null;
}

export const PARTS = ['mx', 'a', 'age', 'subdomain'] as const;
export type Part = (typeof PARTS)[number];
export type Weights = Record<Part, number>;

export const DEFAULT_WEIGHTS: Readonly<Weights> = { mx: 50, a: 10, age: 25, subdomain: 15 };

/** Days over which a new domain's age part grows from 0 to half its weight. */
const NEW_DOMAIN_RAMP_DAYS = 30;

/** Share (0–1) of a part's weight the evidence earns; null when the evidence is unknown. */
export function fraction(part: Part, e: Evidence): number | null {
  switch (part) {
    case 'mx':
      if (e.mxStatus === 'valid') return e.mxHostsAreIps === true ? 0.5 : 1;
      return e.mxStatus === 'invalid' ? 0 : null;
    case 'a':
      return addressFraction(e);
    case 'age':
      if (e.ageSignal === 'established') return 1;
      if (e.ageSignal !== 'new_domain') return null;
      return 0.5 * Math.min(Math.max(e.ageDays ?? 0, 0) / NEW_DOMAIN_RAMP_DAYS, 1);
    case 'subdomain':
      return subdomainFraction(e);
  }
}

function addressFraction(e: Evidence): number | null {
  if (e.aFallback === 'valid') return 1;
  if (e.aFallback === 'invalid') return 0;
  if (e.aFallback !== 'not_needed') return null;
  if ((e.aCount ?? 0) + (e.aaaaCount ?? 0) > 0) return 1;
  return e.aCount === 0 && e.aaaaCount === 0 ? 0 : null;
}

/** Thirds of the weight: a level of nesting costs one (deep nesting two), a random or UUID label two each. */
function subdomainFraction(e: Evidence): number | null {
  if (e.subdomainCount === null) return null;
  let cost = 0;
  if (e.deepNesting === 'detected') cost += 2;
  else if (e.subdomainCount >= 2) cost += 1;
  if (e.randomSubdomain === 'detected') cost += 2;
  if (e.uuidSubdomain === 'detected') cost += 2;
  return Math.max(0, 3 - cost) / 3;
}

/** Can mail reach the domain: an MX host, or no MX but an A/AAAA address (RFC 5321 implicit MX)? */
export function mailRoute(e: Evidence): 'yes' | 'no' | 'unknown' {
  if (e.hasNullMx === true) return 'no';
  if (e.mxStatus === 'valid') return 'yes';
  if (e.mxStatus !== 'invalid') return 'unknown';
  if (e.aFallback === 'valid') return 'yes';
  return e.aFallback === 'invalid' ? 'no' : 'unknown';
}

/** Weights scaled to sum to exactly 100 (largest remainder); all zeros stay zeros. */
export function normalizeWeights(weights: Weights): Weights {
  const total = PARTS.reduce((sum, part) => sum + weights[part], 0);
  if (total === 0 || total === 100) return { ...weights };
  const exact = PARTS.map((part) => ({ part, value: (weights[part] * 100) / total }));
  const scaled = Object.fromEntries(exact.map(({ part, value }) => [part, Math.floor(value)])) as Weights;
  let missing = 100 - PARTS.reduce((sum, part) => sum + scaled[part], 0);
  for (const { part } of [...exact].sort((x, y) => (y.value % 1) - (x.value % 1))) {
    if (missing === 0) break;
    scaled[part] += 1;
    missing -= 1;
  }
  return scaled;
}

export interface Score {
  contributions: Record<Part, number | null>;
  /** 0–100; null when the mail route is unknown or no weighted part is known. */
  score: number | null;
  route: 'yes' | 'no' | 'unknown';
}

export function score(e: Evidence, weights: Weights): Score {
  const w = normalizeWeights(weights);
  const contributions = {} as Record<Part, number | null>;
  let earned = 0;
  let known = 0;
  for (const part of PARTS) {
    const f = fraction(part, e);
    const c = f === null ? null : Math.round(w[part] * f);
    contributions[part] = c;
    if (c !== null) {
      earned += c;
      known += w[part];
    }
  }
  const route = mailRoute(e);
  // Over the known parts only: an unknown part (no RDAP for the TLD, say) neither earns nor costs.
  const total = route === 'unknown' || known === 0 ? null : Math.round((earned * 100) / known);
  return { contributions, score: total, route };
}
