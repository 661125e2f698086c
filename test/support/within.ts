// A bound on a wait: `await within(stopped, 2_000, 'the second stop')` fails the test by name instead of
// hanging it until the test timeout. It never delays a promise that settles in time.

/** Settles as `promise` does, or rejects naming `what` once `ms` have passed without it settling. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}
