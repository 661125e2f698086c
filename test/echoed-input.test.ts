import { describe, expect, it } from 'vitest';
import { ECHO_MAX_CHARS, echoInput } from '../src/echoed-input.js';

describe('echoInput', () => {
  it.each([
    ['plain text', 'emial', 'emial'],
    ['a newline and a terminal escape', 'a\n\u001b[31mb', 'a\\u000a\\u001b[31mb'],
    ['CR, tab, NUL and DEL', '\r\t\u0000\u007f', '\\u000d\\u0009\\u0000\\u007f'],
    ['a C1 control (NEL)', 'a\u0085b', 'a\\u0085b'],
    ['line and paragraph separators', '\u2028\u2029', '\\u2028\\u2029'],
    ['a right-to-left override and a zero-width joiner', '\u202eabc\u200d', '\\u202eabc\\u200d'],
    ['a lone surrogate', 'a\ud800b', 'a\\ud800b'],
    ['a tag character (outside the BMP)', 'a\u{e0041}', 'a\\u{e0041}'],
    ['letters and emoji, kept', 'Zoë 👋 日本', 'Zoë 👋 日本'],
  ])('%s', (_label, input, quoted) => {
    expect(echoInput(input)).toBe(quoted);
  });

  it(`cuts at ${ECHO_MAX_CHARS} characters with an ellipsis`, () => {
    expect(echoInput('x'.repeat(1_000_000))).toBe(`${'x'.repeat(ECHO_MAX_CHARS)}…`);
    expect(echoInput('x'.repeat(ECHO_MAX_CHARS))).toBe('x'.repeat(ECHO_MAX_CHARS));
    expect(echoInput('abcdef', 3)).toBe('abc…');
  });

  it('never splits a surrogate pair where it cuts', () => {
    expect(echoInput(`${'x'.repeat(ECHO_MAX_CHARS - 1)}👋`)).toBe(`${'x'.repeat(ECHO_MAX_CHARS - 1)}…`);
  });
});
