// The README and the docs link the project's own files: every relative link of a Markdown file in the
// repository resolves to a file or folder inside it (never ../ out of it, never an absolute path).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';

const SKIPPED = new Set(['node_modules', 'dist', 'data', '.git', 'coverage']);

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/** Link targets of inline links and reference definitions, outside code spans and fenced blocks. */
function linksOf(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
  const inline = [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] as string);
  const references = [...prose.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map((m) => m[1] as string);
  return [...inline, ...references];
}

const files = markdownFiles(packageRoot);

describe('links in the Markdown files', () => {
  it('finds the README and the docs', () => {
    const names = files.map((file) => relative(packageRoot, file));
    expect(names).toEqual(expect.arrayContaining(['README.md', 'docs/api.md', 'docs/architecture.md', 'docs/plugins.md']));
  });

  it.each(files.map((file) => [relative(packageRoot, file), file]))('%s links only files of the repository that exist', (_name, file) => {
    const problems: string[] = [];
    for (const link of linksOf(readFileSync(file, 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link) || link.startsWith('#')) continue; // a URL (https:, mailto:) or an anchor of this page
      const path = decodeURIComponent(link.split('#')[0] as string);
      if (path.startsWith('/')) {
        problems.push(`${link}: an absolute path`);
        continue;
      }
      const target = resolve(dirname(file), path);
      if (relative(packageRoot, target).startsWith('..')) problems.push(`${link}: outside the repository`);
      else if (!existsSync(target)) problems.push(`${link}: no such file`);
    }
    expect(problems).toEqual([]);
  });
});
