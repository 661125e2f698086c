// Client-supplied text quoted in a message (a field name, a header value, a method, a path) is capped
// and its invisible characters are written as \uXXXX, so that a refusal can carry neither megabytes
// nor a forged line into a response, a log or an operator's terminal.

/** How much of one client-supplied value a message quotes. */
export const ECHO_MAX_CHARS = 64;

// Control (C0, DEL, C1), format (bidi overrides, zero-width), lone surrogate, line and paragraph separators.
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu;

/** `text` cut to `max` UTF-16 units (then "…") with every invisible character escaped. */
export function echoInput(text: string, max = ECHO_MAX_CHARS): string {
  let kept = text.length > max ? text.slice(0, max) : text;
  // Never split a surrogate pair: a lone half would be escaped as if the client had sent it.
  if (kept.length < text.length && /[\uD800-\uDBFF]$/.test(kept)) kept = kept.slice(0, -1);
  const escaped = kept.replace(INVISIBLE, (c) => {
    const code = c.codePointAt(0) ?? 0;
    return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
  return kept.length < text.length ? `${escaped}…` : escaped;
}
