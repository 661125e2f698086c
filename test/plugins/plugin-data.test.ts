// The data-list helpers every list plugin uses.
import { describe, expect, it } from 'vitest';
import { asciiHostName, domainAndParents, parseList, selfAndParents } from '../../plugins/plugin-data.js';

describe('plugin data lists', () => {
  it('parses one lower-case name per line, skipping comments and blank lines', () => {
    expect([...parseList('# header\n\nspam.example\n  Other.Example  \n# note\nspam.example\n')]).toEqual(['spam.example', 'other.example']);
  });

  it('walks a domain up to its registrable domain', () => {
    expect(domainAndParents('a.b.example.co.uk', 'example.co.uk')).toEqual(['a.b.example.co.uk', 'b.example.co.uk', 'example.co.uk']);
    expect(domainAndParents('example.co.uk', 'example.co.uk')).toEqual(['example.co.uk']);
    expect(domainAndParents('co.uk', null)).toEqual(['co.uk']);
    expect(domainAndParents('xexample.co.uk', 'example.co.uk')).toEqual(['xexample.co.uk']);
  });
});

describe('host names and their parents', () => {
  it('lists a domain and every parent down to its top-level label', () => {
    expect(selfAndParents('a.b.gov.uk')).toEqual(['a.b.gov.uk', 'b.gov.uk', 'gov.uk', 'uk']);
    expect(selfAndParents('localhost')).toEqual(['localhost']);
  });

  it.each([
    ['example.com', 'example.com'],
    ['example.com.', 'example.com'],
    ['', null],
    ['.example.com', null],
    ['a..b.com', null],
    ['bücher.de', null],
    [`${'a'.repeat(250)}.com`, null],
  ])('asciiHostName(%j) → %j', (domain, expected) => {
    expect(asciiHostName(domain)).toBe(expected);
  });
});
