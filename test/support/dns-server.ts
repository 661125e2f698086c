// A real DNS server for tests (dns2), on 127.0.0.1 with an ephemeral port shared by UDP and TCP.
// It answers from a small zone, can refuse, fail or stay silent per name, and counts the questions it
// receives so a test can assert that a cached answer asked nothing.
//
//   const dns = await startDnsServer();
//   const lookup = createDnsLookup({ servers: [dns.server] });
//   …
//   await dns.close();
import type { Socket } from 'node:net';
import dns2, { type DnsHandler, type Packet as PacketT, type TCPServer, type UDPServer } from 'dns2';

const { Packet } = dns2;

export type ZoneRecord = { type: 'A' | 'AAAA'; address: string; ttl?: number } | { type: 'MX'; exchange: string; priority: number; ttl?: number };

/** What the server does for a name: answer from records (none for a type: NODATA), or an rcode, or nothing. */
export type ZoneEntry = { records: ZoneRecord[] } | { rcode: 'NXDOMAIN' | 'SERVFAIL' | 'REFUSED' } | { silent: true };

export type Zone = Readonly<Record<string, ZoneEntry>>;

const DEFAULT_TTL = 300;

/** The test zone. Names not listed answer NXDOMAIN. */
export const TEST_ZONE: Zone = {
  'mx.test': {
    records: [
      { type: 'MX', exchange: 'mail.mx.test', priority: 10 },
      { type: 'A', address: '192.0.2.10' },
    ],
  },
  'mail.mx.test': { records: [{ type: 'A', address: '192.0.2.25' }] },
  // What a service started against this server names in DNS_CANARIES: a domain that must resolve.
  'canary.test': { records: [{ type: 'MX', exchange: 'mail.mx.test', priority: 10 }] },
  'multi.test': {
    records: [
      { type: 'MX', exchange: 'mx1.multi.test', priority: 10 },
      { type: 'MX', exchange: 'mx2.multi.test', priority: 20 },
      { type: 'A', address: '192.0.2.11' },
      { type: 'A', address: '192.0.2.12' },
      { type: 'AAAA', address: '2001:db8::11' },
    ],
  },
  'aonly.test': {
    records: [
      { type: 'A', address: '192.0.2.20' },
      { type: 'AAAA', address: '2001:db8::20' },
    ],
  },
  'v6only.test': { records: [{ type: 'AAAA', address: '2001:db8::21' }] },
  'nullmx.test': {
    records: [
      { type: 'MX', exchange: '.', priority: 0 },
      { type: 'A', address: '192.0.2.30' },
    ],
  },
  'ipmx.test': { records: [{ type: 'MX', exchange: '192.0.2.1', priority: 10 }] },
  'empty.test': { records: [] },
  'shortttl.test': { records: [{ type: 'A', address: '192.0.2.40', ttl: 2 }] },
  // bücher.test in ASCII form: IDN addresses must be looked up as punycode.
  'xn--bcher-kva.test': { records: [{ type: 'MX', exchange: 'mail.mx.test', priority: 10 }] },
  'nx.test': { rcode: 'NXDOMAIN' },
  'servfail.test': { rcode: 'SERVFAIL' },
  'refused.test': { rcode: 'REFUSED' },
  'silent.test': { silent: true },
};

/** RFC 1035 response codes (dns2 has them at run time, its types do not). */
const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, REFUSED: 5 } as const;

const TYPE_NAMES: Record<number, string> = { [Packet.TYPE.A]: 'A', [Packet.TYPE.AAAA]: 'AAAA', [Packet.TYPE.MX]: 'MX' };

export interface DnsQuestion {
  name: string;
  type: string;
  transport: 'udp' | 'tcp';
}

export interface TestDnsServer {
  /** `127.0.0.1:<port>`, the form DNS_SERVERS and Resolver.setServers take. */
  readonly server: string;
  readonly port: number;
  /** Every question received, in order. */
  readonly questions: readonly DnsQuestion[];
  /** Questions received, optionally only for one name (and one type: 'A', 'AAAA', 'MX'). */
  count(name?: string, type?: string): number;
  close(): Promise<void>;
}

function respond(zone: Zone, request: PacketT): PacketT | null {
  const response = Packet.createResponseFromRequest(request);
  response.header.aa = 1;
  response.header.ra = 1;
  const question = request.questions[0];
  if (!question) {
    response.header.rcode = RCODE.FORMERR;
    return response;
  }
  const name = question.name.toLowerCase();
  const entry = zone[name];
  if (entry && 'silent' in entry) return null;
  if (!entry) {
    response.header.rcode = RCODE.NXDOMAIN;
    return response;
  }
  if ('rcode' in entry) {
    response.header.rcode = RCODE[entry.rcode];
    return response;
  }
  for (const record of entry.records) {
    if (Packet.TYPE[record.type] !== question.type) continue;
    const data = record.type === 'MX' ? { exchange: record.exchange, priority: record.priority } : { address: record.address };
    response.answers.push(Packet.createResourceFromQuestion(question, { class: Packet.CLASS.IN, ttl: record.ttl ?? DEFAULT_TTL, ...data }));
  }
  return response;
}

/** Starts the server on 127.0.0.1 with `zone` (default TEST_ZONE); UDP and TCP listen on one port. */
export async function startDnsServer(zone: Zone = TEST_ZONE): Promise<TestDnsServer> {
  const questions: DnsQuestion[] = [];
  const handler =
    (transport: 'udp' | 'tcp'): DnsHandler =>
    (request, send) => {
      const question = request.questions[0];
      questions.push({ name: question?.name.toLowerCase() ?? '', type: TYPE_NAMES[question?.type ?? -1] ?? String(question?.type), transport });
      const response = respond(zone, request);
      if (response) void send(response).catch(() => undefined);
    };

  const { udp, tcp, sockets } = await listenOnOnePort(handler('udp'), handler('tcp'));
  const port = udp.address().port;
  return {
    server: `127.0.0.1:${port}`,
    port,
    questions,
    count: (name, type) => questions.filter((q) => (name === undefined || q.name === name) && (type === undefined || q.type === type)).length,
    close: async () => {
      await Promise.all([
        new Promise<void>((resolve) => udp.close(() => resolve())),
        new Promise<void>((resolve) => {
          tcp.close(() => resolve());
          // Silent names keep TCP connections open; close() would wait for them.
          for (const socket of sockets) socket.destroy();
        }),
      ]);
    },
  };
}

/** Binds UDP on an ephemeral port, then TCP on the same port (retrying when that port is taken for TCP). */
async function listenOnOnePort(udpHandler: DnsHandler, tcpHandler: DnsHandler): Promise<{ udp: UDPServer; tcp: TCPServer; sockets: Set<Socket> }> {
  for (let attempt = 0; ; attempt++) {
    const udp = dns2.createUDPServer(udpHandler);
    udp.on('requestError', () => undefined);
    await udp.listen(0, '127.0.0.1');
    const port = udp.address().port;
    const tcp = dns2.createTCPServer(tcpHandler);
    tcp.on('requestError', () => undefined);
    const sockets = new Set<Socket>();
    tcp.on('connection', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    });
    const bound = await new Promise<boolean>((resolve) => {
      tcp.once('error', () => resolve(false));
      tcp.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (bound) return { udp, tcp, sockets };
    await new Promise<void>((resolve) => udp.close(() => resolve()));
    if (attempt >= 5) throw new Error('could not bind UDP and TCP on one port');
  }
}
