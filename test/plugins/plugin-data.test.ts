// The data-list helpers every list plugin uses.
import { describe, expect, it } from 'vitest';
import { domainAndParents, parseList } from '../../plugins/plugin-data.js';

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
