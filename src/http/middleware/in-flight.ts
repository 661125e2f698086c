// The requests the app is still handling. A stop waits for them, not only for their connections: a client
// that hangs up leaves its request running (its checks, then its event commit), and closing the store under
// it would lose the event and log an error for a request nobody did anything wrong in.
import type { Middleware } from 'koa';

export class InFlightRequests {
  private running = 0;
  private waiters: Array<() => void> = [];

  get count(): number {
    return this.running;
  }

  /** Counts each request from its first middleware until its answer is set (or its handler has thrown). */
  readonly middleware: Middleware = async (_ctx, next) => {
    this.running += 1;
    try {
      await next();
    } finally {
      this.running -= 1;
      if (this.running === 0) for (const settle of this.waiters.splice(0)) settle();
    }
  };

  /** Resolves once no request is being handled. */
  idle(): Promise<void> {
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}
