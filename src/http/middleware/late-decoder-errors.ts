// A compressed body is read through a decompression stream piped from the request (koa-bodyparser →
// co-body → inflation). When reading gives up early (the inflated body passed the size limit: 413),
// raw-body removes its listeners from that stream; if the rest of the stream is corrupt (a truncated
// gzip), its 'error' event then fires with no listener, and an unhandled 'error' event ends the process.
// One request could stop the service, before any authentication. So every stream the request is piped
// into keeps a listener: an error while the body is read is still reported by raw-body; a late one, after
// the answer is decided, is dropped.
import type { Middleware } from 'koa';

export function keepLateDecoderErrors(): Middleware {
  return (ctx, next) => {
    const req = ctx.req;
    const pipe = req.pipe;
    req.pipe = function pipeKeepingErrors<T extends NodeJS.WritableStream>(destination: T, options?: { end?: boolean }): T {
      destination.on('error', ignoreLateError);
      return pipe.call(this, destination, options) as T;
    };
    return next();
  };
}

function ignoreLateError(): void {
  // The body's outcome was already decided (and answered) by the body parser.
}
