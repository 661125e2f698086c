import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { compileSegments, dottedQuadNumber, Ipv4Table, Ipv6Table, ipv4Number, ipv6Halves, parseRanges, type Range } from './range-table.js';

/** Label = the lowest set index covering + 1: "set 0 wins over set 1 wins over …". */
const firstSet = (mask: number) => 31 - Math.clz32(mask & -mask) + 1;
const v4 = (text: string) => ipv4Number(ipaddr.IPv4.parse(text));
const v6 = (text: string) => ipv6Halves(ipaddr.IPv6.parse(text));

describe('compileSegments', () => {
  it('splits overlapping ranges into disjoint segments, each labelled by the precedence', () => {
    // set 0: 10..19 inside set 1: 0..99; set 2 touches set 1's end.
    const sets: Range<number>[][] = [[[10, 19]], [[0, 99]], [[100, 109]]];
    expect(compileSegments(sets, firstSet)).toEqual([
      { first: 0, last: 9, label: 2 },
      { first: 10, last: 19, label: 1 },
      { first: 20, last: 99, label: 2 },
      { first: 100, last: 109, label: 3 },
    ]);
  });

  it('merges adjacent segments with the same label and leaves gaps out', () => {
    const sets: Range<number>[][] = [
      [
        [0, 4],
        [5, 9],
        [20, 29],
      ],
      [[6, 7]],
    ];
    // set 1 is hidden inside set 0 (which wins), so 0..9 is one segment; 10..19 is a gap.
    expect(compileSegments(sets, firstSet)).toEqual([
      { first: 0, last: 9, label: 1 },
      { first: 20, last: 29, label: 1 },
    ]);
  });

  it('passes the full covering mask to resolve, and drops label 0', () => {
    const masks: number[] = [];
    const sets: Range<number>[][] = [[[0, 9]], [[5, 14]]];
    const segments = compileSegments(sets, (mask) => {
      masks.push(mask);
      return mask === 0b11 ? 0 : mask;
    });
    expect(masks).toEqual([0b01, 0b11, 0b10]);
    expect(segments).toEqual([
      { first: 0, last: 4, label: 1 },
      { first: 10, last: 14, label: 2 },
    ]);
  });

  it('counts nested ranges of one set: a set stays covering until its last range ends', () => {
    const sets: Range<number>[][] = [
      [
        [0, 99],
        [10, 19],
      ],
      [[50, 59]],
    ];
    expect(compileSegments(sets, (mask) => mask)).toEqual([
      { first: 0, last: 49, label: 1 },
      { first: 50, last: 59, label: 3 },
      { first: 60, last: 99, label: 1 },
    ]);
  });

  it('works on bigints up to the last IPv6 address', () => {
    const top = (1n << 128n) - 1n;
    expect(compileSegments([[[top - 1n, top]]], () => 7)).toEqual([{ first: top - 1n, last: top, label: 7 }]);
  });

  it('refuses more than 32 sets, a reversed range and a label out of 0..65535', () => {
    expect(() =>
      compileSegments(
        Array.from({ length: 33 }, () => []),
        firstSet,
      ),
    ).toThrow(/at most 32/);
    expect(() => compileSegments([[[5, 4]]], firstSet)).toThrow(/ends before it starts/);
    expect(() => compileSegments([[[0, 1]]], () => 70_000)).toThrow(/label/);
  });
});

describe('Ipv4Table', () => {
  const { v4: a } = parseRanges('10.0.0.0/8\n192.0.2.1\n');
  const { v4: b } = parseRanges('10.1.0.0/16\n255.255.255.255/32\n0.0.0.0/32\n');
  const table = new Ipv4Table(compileSegments([b, a], firstSet));

  it.each([
    ['0.0.0.0', 1],
    ['0.0.0.1', 0],
    ['9.255.255.255', 0],
    ['10.0.0.0', 2],
    ['10.0.255.255', 2],
    ['10.1.0.0', 1],
    ['10.1.255.255', 1],
    ['10.2.0.0', 2],
    ['10.255.255.255', 2],
    ['11.0.0.0', 0],
    ['192.0.2.0', 0],
    ['192.0.2.1', 2],
    ['192.0.2.2', 0],
    ['255.255.255.254', 0],
    ['255.255.255.255', 1],
  ])('%s → label %i', (address, label) => {
    expect(table.find(v4(address))).toBe(label);
  });

  it('holds one entry per disjoint segment, in typed arrays', () => {
    expect(table.size).toBe(6); // 0.0.0.0, 10.0/16, 10.1/16, 10.2-10.255, 192.0.2.1, 255.255.255.255
    expect(table.bytes).toBe(6 * (4 + 4 + 2));
  });

  it('answers 0 when empty', () => {
    expect(new Ipv4Table([]).find(v4('10.0.0.1'))).toBe(0);
  });
});

describe('Ipv6Table', () => {
  const { v6: a } = parseRanges('2001:db8::/32\n2600::/16\n');
  const { v6: b } = parseRanges('2001:db8:0:1::/64\n2001:db8::ffff:ffff:ffff:ffff\nffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff\n');
  const table = new Ipv6Table(compileSegments([b, a], firstSet));

  it.each([
    ['::', 0],
    ['2001:db7:ffff:ffff:ffff:ffff:ffff:ffff', 0],
    ['2001:db8::', 2],
    ['2001:db8::ffff:ffff:ffff:fffe', 2],
    ['2001:db8::ffff:ffff:ffff:ffff', 1], // the last address of the first /64: a split on the low half
    ['2001:db8:0:1::', 1],
    ['2001:db8:0:1:ffff:ffff:ffff:ffff', 1],
    ['2001:db8:0:2::', 2],
    ['2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', 2],
    ['2001:db9::', 0],
    ['2600:ffff::1', 2],
    ['2601::', 0],
    ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe', 0],
    ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 1],
  ])('%s → label %i', (address, label) => {
    const [hi, lo] = v6(address);
    expect(table.find(hi, lo)).toBe(label);
  });
});

describe('parseRanges', () => {
  it('reads CIDRs and bare addresses of both versions, clears host bits, skips blanks and comments', () => {
    expect(parseRanges('# comment\n\n192.0.2.77/24\n198.51.100.1\n2001:db8::1/32\n::1\n')).toEqual({
      v4: [
        [v4('192.0.2.0'), v4('192.0.2.255')],
        [v4('198.51.100.1'), v4('198.51.100.1')],
      ],
      v6: [
        [0x20010db8n << 96n, (0x20010db8n << 96n) | ((1n << 96n) - 1n)],
        [1n, 1n],
      ],
    });
  });

  it('reads /0', () => {
    expect(parseRanges('0.0.0.0/0\n::/0\n')).toEqual({ v4: [[0, 0xffffffff]], v6: [[0n, (1n << 128n) - 1n]] });
  });

  it('ignores white space around a line (CRLF endings, tabs, a no-break space) and counts lines as written', () => {
    const text = ' 192.0.2.1\r\n\t# indented comment\r\n\u00a0198.51.100.0/31\u00a0\n  \n2001:db8::1\t\r\n';
    expect(parseRanges(text)).toEqual({
      v4: [
        [v4('192.0.2.1'), v4('192.0.2.1')],
        [v4('198.51.100.0'), v4('198.51.100.1')],
      ],
      v6: [[(0x20010db8n << 96n) | 1n, (0x20010db8n << 96n) | 1n]],
    });
    expect(parseRanges('192.0.2.1')).toEqual({ v4: [[v4('192.0.2.1'), v4('192.0.2.1')]], v6: [] });
    expect(() => parseRanges('\r\n# a\r\n 10.0.0.1x \r\n', 'x.txt')).toThrow('x.txt:3: "10.0.0.1x"');
  });

  it.each([
    '256.0.0.1',
    '10.0.0.0/33',
    '10.0.0',
    '10.0.0.',
    '.10.0.0.1',
    '10..0.1',
    '10.0.0.1/',
    '10.0.0.1/8/8',
    '1000.0.0.1',
    '10.0.0.0/100',
    '10.0.0.1.5',
    'example.com',
    '2001:db8::/129',
    '2001:db8:::1',
    '10.0.0.0/8 # trailing',
  ])('refuses %s, naming the source and line', (line) => {
    expect(() => parseRanges(`10.0.0.0/8\n${line}\n`, 'x.txt')).toThrow(`x.txt:2: "${line}"`);
  });
});

describe('IPv6 lines: the hex-colon fast path reads them as ipaddr.js does', () => {
  /** The range ipaddr.js gives a line, or null when it refuses it. */
  const reference = (line: string): Range<bigint> | null => {
    try {
      const [address, bits] = line.includes('/') ? ipaddr.IPv6.parseCIDR(line) : [ipaddr.IPv6.parse(line), 128];
      const [hi, lo] = ipv6Halves(address);
      const size = 1n << BigInt(128 - bits);
      const first = ((hi << 64n) | lo) & ~(size - 1n);
      return [first, first + size - 1n];
    } catch {
      return null;
    }
  };
  const ours = (line: string): Range<bigint> | null => {
    try {
      return parseRanges(line).v6[0] ?? null;
    } catch {
      return null;
    }
  };

  it.each([
    '::',
    '::1',
    '1::',
    '::/0',
    '2001:db8::/32',
    '2001:DB8:0:0:0:0:0:1/128',
    '2001:0db8:0000::0001',
    '1:2:3:4:5:6:7:8',
    '1:2:3:4:5:6:7::',
    '::2:3:4:5:6:7:8',
    '2001:db8::ffff:ffff:ffff:ffff/64',
    '::ffff:192.0.2.1',
    '::ffff:192.0.2.0/120',
    '2001:db8::/0128',
    // refused by both
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7::8',
    '1::2::3',
    ':::',
    ':1::',
    '2001:db8::g',
    '2001:db8:12345::',
    '2001:db8::/129',
    '2001:db8::/',
    '2001:db8::/-1',
    '1:2:',
    ':1:2:3:4:5:6:7',
    '1::2:',
    '1:2:3:4:5:6:7:8::',
    '1:2:3:4:5:6:7:8/64',
    '1:2:3:4:5:6:7::/128',
    '::1/64',
    '2001:db8::/1a',
    '',
  ])('%s', (line) => {
    expect(ours(line)).toEqual(reference(line));
  });

  it('every IPv6 line of the shipped data files', async () => {
    const { readdirSync, readFileSync, statSync } = await import('node:fs');
    const { join } = await import('node:path');
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (name.endsWith('.txt')) files.push(path);
      }
    };
    walk(join(import.meta.dirname, 'data'));
    const lines = files
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .map((l) => l.trim()),
      )
      .filter((l) => l.includes(':') && !l.startsWith('#'));
    expect(lines.length).toBeGreaterThan(20_000);
    const differ = lines.filter((line) => {
      const [a, b] = [ours(line), reference(line)];
      return a?.[0] !== b?.[0] || a?.[1] !== b?.[1];
    });
    expect(differ).toEqual([]);
  });
});

describe('dottedQuadNumber: the canonical IPv4 form read as ipaddr.js reads it, anything else left to it', () => {
  it('gives the number ipaddr.js gives for canonical addresses, edges included', () => {
    const addresses = ['0.0.0.0', '255.255.255.255', '1.2.3.4', '10.0.0.1', '127.0.0.1', '198.51.100.7', '203.0.113.255', '100.64.0.0', '9.99.199.250'];
    // And a spread of the whole space, each octet 0-255 hit.
    for (let n = 0; n < 4096; n++) addresses.push(`${(n * 7) % 256}.${(n * 13) % 256}.${(n * 101) % 256}.${n % 256}`);
    for (const text of addresses) expect(dottedQuadNumber(text), text).toBe(ipv4Number(ipaddr.IPv4.parse(text)));
  });

  it('is null for any other text: leading zeros (octal to ipaddr.js), hex, fewer or more parts, out of range, IPv6, stray characters', () => {
    for (const text of [
      '01.2.3.4',
      '1.2.3.010',
      '00.0.0.0',
      '0x7f.0.0.1',
      '127.1',
      '2130706433',
      '1.2.3',
      '1.2.3.4.5',
      '256.1.1.1',
      '1.2.3.1000',
      '1.2.3.4 ',
      ' 1.2.3.4',
      '1..2.3',
      '1.2.3.',
      '.1.2.3',
      '::1',
      '::ffff:1.2.3.4',
      '1.2.3.4/32',
      '',
      '１.2.3.4',
    ]) {
      expect(dottedQuadNumber(text), text).toBeNull();
    }
  });
});
