// YAML syntax errors placed where the author has to look. The yaml library reports some where it gave up
// rather than where the mistake is: an unclosed `{`, `[` or quote at the next line (or the end of the
// file), an over-indented line at the key above it, a misaligned key at the start of its line. Each is
// moved to the opening bracket or quote, the offending line or its first character, and given the path
// of the node it is in.
import { CST, type Document, isMap, isNode, isScalar, isSeq, type LineCounter, Parser, type YAMLError } from 'yaml';
import { pointer } from '../schemas.js';
import type { PolicyProblem } from './errors.js';

interface Opener {
  offset: number;
  kind: 'flow-map' | 'flow-seq' | 'quote';
}

export function syntaxProblems(file: string, text: string, doc: Document, lineCounter: LineCounter): PolicyProblem[] {
  const openers = unclosedOpeners(text);
  // An over-indented line gives two errors at the key above it; the multi-line one says what happened.
  const multiline = new Set(doc.errors.filter((e) => e.code === 'MULTILINE_IMPLICIT_KEY').map((e) => e.pos[0]));
  const errors = doc.errors.filter((e) => !(e.code === 'BLOCK_AS_IMPLICIT_KEY' && multiline.has(e.pos[0])));
  const problems = errors.map((error) => {
    const { offset, message, pathOffset } = placed(error, text, openers);
    const { line, col } = lineCounter.linePos(offset);
    // The over-indented line made a two-line key of the value above it: the path is that value's.
    const path = pathOffset === undefined ? pathAt(doc, offset) : pathAt(doc, pathOffset).slice(0, -1);
    return { file, line, column: col, path: pointer(path), message };
  });
  // Two errors about one unclosed bracket (yaml reports both the map and the sequence around it) are one.
  return problems.filter((p, i) => problems.findIndex((q) => q.line === p.line && q.column === p.column && q.message === p.message) === i);
}

function placed(error: YAMLError, text: string, openers: readonly Opener[]): { offset: number; message: string; pathOffset?: number } {
  const reported = error.pos[0];
  const first = error.message.split('\n')[0] ?? error.code;
  const unclosed = unclosedKind(error, first);
  if (unclosed) {
    const opener = [...openers].reverse().find((o) => o.kind === unclosed && o.offset < reported);
    if (opener) return { offset: opener.offset, message: openerMessage(unclosed) };
  }
  if (error.code === 'MULTILINE_IMPLICIT_KEY') {
    const newline = text.indexOf('\n', reported);
    if (newline >= 0 && newline < error.pos[1]) {
      return {
        offset: firstNonBlank(text, newline + 1),
        pathOffset: reported,
        message: 'this line is indented deeper than the key above it, so YAML reads it as the rest of that value: indent it like its sibling keys',
      };
    }
  }
  if (error.code === 'BAD_INDENT' && /same column/.test(first)) return { offset: firstNonBlank(text, reported), message: first };
  return { offset: reported, message: first };
}

function unclosedKind(error: YAMLError, message: string): Opener['kind'] | null {
  if (/^Flow map .*end with a \}/.test(message) || /^Expected flow map to end with \}/.test(message)) return 'flow-map';
  if (/^Flow sequence .*end with a \]/.test(message) || /^Expected flow sequence to end with \]/.test(message)) return 'flow-seq';
  if (error.code === 'MISSING_CHAR' && /quote/.test(message)) return 'quote';
  return null;
}

function openerMessage(kind: Opener['kind']): string {
  if (kind === 'quote') return 'this quoted string is never closed: end it with the same quote on this line';
  const [what, close] = kind === 'flow-map' ? ['{', '}'] : ['[', ']'];
  return `this ${what} is never closed: end it with ${close} (on this line, or indent the lines it continues on)`;
}

/** The flow collections and quoted strings of the text that are not closed, in order. */
function unclosedOpeners(text: string): Opener[] {
  const openers: Opener[] = [];
  const look = (token: CST.Token | undefined): void => {
    if (!token) return;
    if (token.type === 'flow-collection') {
      const kind = token.start.source === '{' ? 'flow-map' : 'flow-seq';
      const close = kind === 'flow-map' ? 'flow-map-end' : 'flow-seq-end';
      if (!token.end.some((t) => t.type === close)) openers.push({ offset: token.offset, kind });
    } else if (token.type === 'double-quoted-scalar' || token.type === 'single-quoted-scalar') {
      const quote = token.type === 'double-quoted-scalar' ? '"' : "'";
      const body = token.source;
      if (body.length < 2 || !body.endsWith(quote)) openers.push({ offset: token.offset, kind: 'quote' });
    }
  };
  for (const token of new Parser().parse(text)) {
    if (token.type !== 'document') continue;
    look(token.value);
    CST.visit(token, (item) => {
      look(item.key ?? undefined);
      look(item.value);
    });
  }
  return openers.sort((a, b) => a.offset - b.offset);
}

function firstNonBlank(text: string, offset: number): number {
  let at = offset;
  while (text[at] === ' ' || text[at] === '\t') at += 1;
  return at < text.length && text[at] !== '\n' ? at : offset;
}

/** Keys and indexes down to the deepest node holding `offset`. */
function pathAt(doc: Document, offset: number): (string | number)[] {
  const path: (string | number)[] = [];
  let node: unknown = doc.contents;
  const holds = (n: unknown) => isNode(n) && n.range !== undefined && n.range !== null && n.range[0] <= offset && offset < n.range[2];
  for (;;) {
    if (isMap(node)) {
      const pair = node.items.find((p) => holds(p.value) || holds(p.key));
      if (!pair) break;
      path.push(isScalar(pair.key) ? String(pair.key.value) : String(pair.key));
      if (!holds(pair.value)) break;
      node = pair.value;
    } else if (isSeq(node)) {
      const index = node.items.findIndex((item) => holds(item));
      if (index < 0) break;
      path.push(index);
      node = node.items[index];
    } else break;
  }
  return path;
}
