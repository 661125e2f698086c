// Waiting for a lookup no longer than a request may: the lookup itself goes on (its answer still
// fills the caches for the next request); only this request stops waiting.

/** The promise's value, or undefined when `ms` pass first. */
export function beforeDeadline<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, Math.min(Math.max(ms, 0), 2_147_483_647), undefined);
    timer.unref();
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}
