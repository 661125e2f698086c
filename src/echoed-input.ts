// Client-supplied text quoted in a message (a field name, a header value, a method, a path) is capped
// and its invisible characters are written as \uXXXX, so that a refusal can carry neither megabytes
// nor a forged line into a response, a log or an operator's terminal.

/** How much of one client-supplied value a message quotes. */
export const ECHO_MAX_CHARS = 64;

// Control (C0, DEL, C1), format (bidi overrides, zero-width), lone surrogate, line and paragraph separators.
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu;

/**
 * `text` with every invisible character escaped, in at most `max` UTF-16 units: when it is longer, cut
 * (between characters, never inside an escape or a surrogate pair) and ended with "…" within the `max`.
 */
export function echoInput(text: string, max = ECHO_MAX_CHARS): string {
  if (text.length <= max) {
    const whole = escapeInvisible(text);
    if (whole.length <= max) return whole;
  }
  let kept = '';
  // Each character takes at least one unit, so no more than `max` of them can be kept.
  for (const char of text.slice(0, max)) {
    const piece = escapeInvisible(char);
    if (kept.length + piece.length > max - 1) break;
    kept += piece;
  }
  return `${kept}…`;
}

function escapeInvisible(text: string): string {
  return text.replace(INVISIBLE, (c) => {
    const code = c.codePointAt(0) ?? 0;
    return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
