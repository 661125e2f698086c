// The node:http server around the Koa app, with the limits that stop slow or idle clients from holding
// connections until file descriptors run out. `serve` and the tests both listen through createHttpServer.
// What node:http refuses before Koa sees a request (a bad request line, a lowercase method, a header
// or request timeout, CONNECT) is answered here, in the error shape, and logged at debug: it is the client's doing.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type Koa from 'koa';
import type { Logger } from 'pino';
import type { ServerLimits } from '../config.js';
import { echoInput } from '../echoed-input.js';
import { errorBody } from './middleware/errors.js';
import { REQUEST_ID_HEADER } from './middleware/request-log.js';
import { RESPONSE_HEADERS } from './middleware/response-headers.js';

/** How often node:http looks for connections past their timeouts: at most this late (its default is 30 s). */
const MAX_CHECK_INTERVAL_MS = 1000;

export function createHttpServer(app: Koa, limits: ServerLimits, log: Logger): Server {
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(MAX_CHECK_INTERVAL_MS, Math.ceil(limits.headersTimeoutMs / 4)),
    },
    app.callback(),
  );
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxConnections = limits.maxConnections;
  server.on('clientError', (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex) => {
    const [status, message] = clientErrorAnswer(error.code);
    answerAndClose(log, socket, { status, path: pathOf(error.rawPacket), message, code: error.code });
  });
  // CONNECT (a proxy tunnel) never reaches Koa: without this listener node:http drops it without an answer.
  server.on('connect', (_request: IncomingMessage, socket: Duplex) => {
    answerAndClose(log, socket, { status: 405, path: '', message: 'method CONNECT is not allowed here: use POST', allow: 'POST' });
  });
  server.on('drop', (dropped?: { remoteAddress?: string }) =>
    log.debug({ maxConnections: limits.maxConnections, remoteAddress: dropped?.remoteAddress }, 'connection dropped: too many open'),
  );
  return server;
}

function clientErrorAnswer(code: string | undefined): [number, string] {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'request timeout: the request was not received in time'];
    case 'HPE_HEADER_OVERFLOW':
      return [431, 'request headers are too large'];
    case 'HPE_INVALID_METHOD':
      return [501, 'method is not implemented: every operation is POST (methods are case-sensitive)'];
    default:
      return [400, 'bad request: not a valid HTTP/1.1 request'];
  }
}

/** The path of the request line node:http failed to parse, to choose the error shape; '' when unknown. */
function pathOf(rawPacket: Buffer | undefined): string {
  const line = rawPacket?.subarray(0, 256).toString('latin1') ?? '';
  return /^\S+ (\/\S*)/.exec(line)?.[1] ?? '';
}

interface Refusal {
  status: number;
  /** Chooses the error shape; '' for the verify/ip one. */
  path: string;
  message: string;
  /** node:http's reason, for the log. */
  code?: string;
  allow?: string;
}

/** Logs the refusal, writes a whole answer and closes (as node:http's own answer does), unless the socket is gone or an answer has begun. */
function answerAndClose(log: Logger, socket: Duplex & { bytesWritten?: number }, refusal: Refusal): void {
  const { status, path, message, code, allow } = refusal;
  const id = randomUUID();
  log.debug({ id, status, code, path: echoInput(path), message }, 'request refused before routing');
  if (socket.writable && !socket.bytesWritten) {
    const body = JSON.stringify(errorBody(path, status, message, id));
    const lines = Object.entries({
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(body)),
      ...RESPONSE_HEADERS,
      [REQUEST_ID_HEADER]: id,
      ...(allow ? { Allow: allow } : {}),
      Connection: 'close',
    }).map(([name, value]) => `${name}: ${value}\r\n`);
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${lines.join('')}\r\n${body}`);
  }
  socket.destroy();
}
