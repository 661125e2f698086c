// Waiting on work that takes no AbortSignal (a table read, a resolver question, velocity history) no longer
// than a signal allows: the work goes on, and may still fill a cache; only this wait ends. The one helper
// for it, shared by the network layer and plugins; the signal is an `AbortSignal.timeout` or a request's budget.

/** The work's value, or undefined when `signal` aborts first (or already has). */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise<T | undefined>((resolve, reject) => {
    const stop = () => resolve(undefined);
    signal.addEventListener('abort', stop, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', stop);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', stop);
        reject(error);
      },
    );
  });
}
