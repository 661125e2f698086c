// Browser origins a project's public key may be used from: what `project set-origins` accepts, and
// which origins POST /v1/fingerprint answers with CORS headers. Only the fingerprint operation is
// opened to browsers; the other operations carry secret keys and answer no CORS at all.
import type { Project } from '../store/projects.js';

/** Most origins one project may list. */
export const MAX_ORIGINS_PER_PROJECT = 20;
/** Longest origin accepted (scheme, a 253-character host and a port fit). */
const MAX_ORIGIN_LENGTH = 300;

export class OriginError extends Error {}

export interface BrowserOrigins {
  /** Whether any project allows the origin: a preflight carries no key that would say which project. */
  anyAllowsOrigin(origin: string): Promise<boolean>;
}

/** Whether a browser page on `origin` may read this project's fingerprint answers. */
export function projectAllowsOrigin(project: Project, origin: string): boolean {
  return project.allowedOrigins.includes(origin);
}

/**
 * An origin as browsers send it in the Origin header (`https://shop.example`, `http://localhost:3000`):
 * scheme lower-cased, default port dropped, IDN host in punycode. Throws OriginError saying why
 * anything else (a path, a query, a wildcard, another scheme) is refused.
 */
export function parseOrigin(text: string): string {
  const expected = 'expected scheme://host or scheme://host:port with scheme http or https, e.g. https://shop.example';
  if (text.length > MAX_ORIGIN_LENGTH) throw new OriginError(`"${text.slice(0, 40)}…" is longer than ${MAX_ORIGIN_LENGTH} characters`);
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text)?.[1]?.toLowerCase();
  if (scheme !== undefined && scheme !== 'http' && scheme !== 'https') throw new OriginError(`"${text}": the scheme must be http or https, not ${scheme}`);
  if (scheme === undefined) throw new OriginError(`"${text}" is not an origin: ${expected}`);
  if (!/^https?:\/\/[^/?#@\s]+\/?$/i.test(text)) throw new OriginError(`"${text}" is not an origin (no path, query, fragment or user): ${expected}`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new OriginError(`"${text}" is not an origin: ${expected}`);
  }
  if (url.hostname.includes('*')) throw new OriginError(`"${text}": wildcards are not allowed; list each origin`);
  if (!/^(([a-z0-9_-]+\.)*[a-z0-9_-]+|\[[0-9a-f:.]+\])$/.test(url.hostname)) throw new OriginError(`"${text}" has no valid host: ${expected}`);
  return url.origin;
}
