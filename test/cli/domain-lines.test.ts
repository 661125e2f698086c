// What a project list file may hold: each line's domain in its lookup form, or the reason it is refused.
import { describe, expect, it } from 'vitest';
import { listDomain, parseDomainLines } from '../../src/cli/domain-lines.js';

describe('a list line accepted, in its lookup form', () => {
  it.each([
    ['example.com', 'example.com'],
    ['Example.COM', 'example.com'],
    ['example.com.', 'example.com'],
    ['mail.sub.example.co.uk', 'mail.sub.example.co.uk'],
    ['bücher.de', 'xn--bcher-kva.de'],
    ['BÜCHER.de', 'xn--bcher-kva.de'],
    ['xn--bcher-kva.de', 'xn--bcher-kva.de'],
    ['XN--BCHER-KVA.DE', 'xn--bcher-kva.de'],
    ['ΣΊΣΥΦΟΣ.gr', 'xn--kxa6akbbkh.gr'], // UTS #46 case folding (σ), not toLowerCase's final ς (xn--kxa6ajbbmh)
    ['1und1.de', '1und1.de'],
    ['a-b.example', 'a-b.example'],
    [`${'a'.repeat(63)}.com`, `${'a'.repeat(63)}.com`],
  ])('%s → %s', (line, domain) => {
    expect(listDomain(line)).toEqual({ domain });
  });
});

describe('a list line refused, with its reason', () => {
  it.each([
    ['jane@example.com', /not an address/],
    ['*.example.com', /without "\*\."/],
    ['192.0.2.1', /IP address/],
    ['[2001:db8::1]', /IP address/],
    ['example.123', /IP address/],
    ['mail.example.0x1f', /IP address/],
    ['0177.0.0.1', /IP address/],
    ['com', /single label/],
    ['localhost', /single label/],
    ['exa mple.com', /without spaces/],
    ['exa_mple.com', /not a valid domain/],
    ['-example.com', /not a valid domain/],
    ['example-.com', /not a valid domain/],
    ['ab--cd.com', /not a valid domain/],
    ['example..com', /not a valid domain/],
    ['.example.com', /not a valid domain/],
    ['xn--zz.com', /not a valid domain/],
    ['ex©ample.com', /not a valid domain/],
    [`${'a'.repeat(64)}.com`, /not a valid domain/],
    [`${'a.'.repeat(126)}com`, /not a valid domain/],
  ])('%s', (line, reason) => {
    const parsed = listDomain(line);
    expect(parsed).toEqual({ reason: expect.stringMatching(reason) });
  });
});

describe('a list file', () => {
  it('skips comments and blank lines, keeps each domain once in first-seen order, and numbers refused lines', () => {
    const text = '# our list\r\nb.example\n\n  a.example  # trailing comment\nB.example\nnot a domain\n\t\nbücher.de\n#done';
    expect(parseDomainLines(text, 'list.txt')).toEqual({
      domains: ['b.example', 'a.example', 'xn--bcher-kva.de'],
      refused: [{ source: 'list.txt', line: 6, text: 'not a domain', reason: 'one domain per line, without spaces' }],
    });
  });

  it('is empty for an empty file or one of comments only', () => {
    expect(parseDomainLines('', 'empty.txt')).toEqual({ domains: [], refused: [] });
    expect(parseDomainLines('# nothing yet\n\n', 'empty.txt')).toEqual({ domains: [], refused: [] });
  });
});
