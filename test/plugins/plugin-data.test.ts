// The helpers every list plugin uses: data lists.
import { describe, expect, it } from 'vitest';
import { parseList } from '../../plugins/plugin-data.js';

describe('plugin data lists', () => {
  it('parses one lower-case name per line, skipping comments and blank lines', () => {
    expect([...parseList('# header\n\nspam.example\n  Other.Example  \n# note\nspam.example\n')]).toEqual(['spam.example', 'other.example']);
  });
});
