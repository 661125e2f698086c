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

  it(`cuts to ${ECHO_MAX_CHARS} characters, the ellipsis included`, () => {
    expect(echoInput('x'.repeat(1_000_000))).toBe(`${'x'.repeat(ECHO_MAX_CHARS - 1)}…`);
    expect(echoInput('x'.repeat(ECHO_MAX_CHARS))).toBe('x'.repeat(ECHO_MAX_CHARS));
    expect(echoInput('x'.repeat(ECHO_MAX_CHARS + 1))).toHaveLength(ECHO_MAX_CHARS);
    expect(echoInput('abcdef', 3)).toBe('ab…');
    expect(echoInput('x'.repeat(600), 512)).toHaveLength(512);
  });

  it('counts the escapes in the cap, and never cuts one in half', () => {
    // 64 newlines would be 384 characters escaped.
    expect(echoInput('\n'.repeat(ECHO_MAX_CHARS))).toBe(`${'\\u000a'.repeat(10)}…`);
    expect(echoInput(`ab${'\u0000'.repeat(10)}`, 12)).toBe('ab\\u0000…');
    expect(echoInput('\u{e0041}'.repeat(3), 24)).toBe('\\u{e0041}\\u{e0041}…');
    for (let max = 1; max <= 40; max++) expect(echoInput('a\u001b[1m\u2028\u{e0041}👋'.repeat(4), max).length).toBeLessThanOrEqual(max);
  });

  it('never splits a surrogate pair where it cuts', () => {
    expect(echoInput(`${'x'.repeat(ECHO_MAX_CHARS - 2)}👋y`)).toBe(`${'x'.repeat(ECHO_MAX_CHARS - 2)}…`);
    expect(echoInput(`${'x'.repeat(ECHO_MAX_CHARS - 3)}👋yz`)).toBe(`${'x'.repeat(ECHO_MAX_CHARS - 3)}👋…`);
  });
});
