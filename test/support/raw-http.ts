// HTTP/1.1 written by hand on a TCP socket, for what fetch will not send: lowercase or unknown methods,
// CONNECT, a request cut off half-way.
import { connect, type Socket } from 'node:net';

export interface RawReply {
  status: number;
  /** Header names lowercased. */
  headers: Record<string, string>;
  body: string;
}

/** Opens a connection to 127.0.0.1:port; resolves once it is connected. */
export function openSocket(port: number): Promise<Socket> {
  return new Promise((done, fail) => {
    const socket = connect(port, '127.0.0.1', () => done(socket));
    socket.once('error', fail);
  });
}

/**
 * Sends `request` as it is and reads until the server closes the connection (a well-formed request
 * should say `Connection: close`). The socket is not half-closed: node:http would abort the request.
 */
export async function rawExchange(port: number, request: string): Promise<RawReply> {
  const socket = await openSocket(port);
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.write(request);
  await new Promise((done) => socket.once('close', done));
  return parseReply(Buffer.concat(chunks).toString('utf8'));
}

export function parseReply(text: string): RawReply {
  const split = text.indexOf('\r\n\r\n');
  const [statusLine = '', ...headerLines] = text.slice(0, split < 0 ? text.length : split).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1] ?? 0), headers, body: split < 0 ? '' : text.slice(split + 4) };
}
