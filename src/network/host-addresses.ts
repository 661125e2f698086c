// The addresses a website probe may connect to: the host resolved once, by us (the configured DNS
// servers, or the system resolver with /etc/hosts), and a pinned `lookup` that hands the connection
// those very addresses, so no second resolution can differ (DNS rebinding).
import type { LookupAddress } from 'node:dns';
import { Resolver, lookup as systemLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';

/** Resolution outcome: addresses, no address at all (NXDOMAIN, NODATA), or a failure. */
export type Resolved = { addresses: LookupAddress[] } | { none: true } | { error: string };

export interface HostResolver {
  resolve(host: string): Promise<Resolved>;
  /** Cancels the questions in flight; for shutdown. */
  cancel(): void;
}

/** The error codes of a rejection, one per inner error of an AggregateError. */
export function errorCodes(error: unknown): string[] {
  const inner = error instanceof AggregateError ? error.errors : [error];
  return inner.map((e: unknown) => String((e as { code?: unknown } | null)?.code ?? 'error'));
}

const absent = (codes: string[]) => codes.every((code) => code === 'ENOTFOUND' || code === 'ENODATA');

/** Resolves through `servers` (DNS_SERVERS form), or the system resolver when there are none. */
export function createHostResolver(servers: readonly string[] | undefined, timeoutMs: number): HostResolver {
  if (!servers || servers.length === 0) return { resolve: resolveBySystem, cancel: () => undefined };
  const resolver = new Resolver({ timeout: Math.min(500, timeoutMs), tries: 2 });
  resolver.setServers([...servers]);
  return {
    async resolve(host) {
      const [v4, v6] = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
      const addresses: LookupAddress[] = [
        ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
        ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
      ];
      if (addresses.length > 0) return { addresses };
      const codes = [v4, v6].flatMap((r) => (r.status === 'rejected' ? errorCodes(r.reason) : []));
      return absent(codes) ? { none: true } : { error: `resolver: ${codes.join(', ')}` };
    },
    cancel: () => resolver.cancel(),
  };
}

async function resolveBySystem(host: string): Promise<Resolved> {
  try {
    const found = await systemLookup(host, { all: true });
    return found.length > 0 ? { addresses: found } : { none: true };
  } catch (error) {
    const codes = errorCodes(error);
    return absent(codes) ? { none: true } : { error: `resolver: ${codes.join(', ')}` };
  }
}

/** A pinned `lookup`: answers with the vetted addresses only, whatever the name. */
export function pinnedLookup(addresses: LookupAddress[]): LookupFunction {
  return ((_hostname: string, options: { all?: boolean; family?: number | string }, callback: (...args: unknown[]) => void) => {
    const family = options.family === 4 || options.family === 'IPv4' ? 4 : options.family === 6 || options.family === 'IPv6' ? 6 : 0;
    const usable = family === 0 ? addresses : addresses.filter((a) => a.family === family);
    const first = usable[0];
    if (options.all) callback(null, usable);
    else if (first) callback(null, first.address, first.family);
    else callback(Object.assign(new Error('no vetted address of that family'), { code: 'ENOTFOUND' }));
  }) as LookupFunction;
}
