// The README and the docs link the project's own files: every relative link of a Markdown file in the
// repository resolves to a file or folder inside it (never ../ out of it, never an absolute path), and a
// link to a heading (`page.md#heading`, `#heading`) names a heading that page has, as GitHub spells it;
// docs/decisions/README.md links every record of its folder.
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

function withoutCode(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '');
}

/** Link targets of inline links and reference definitions, outside code spans and fenced blocks. */
function linksOf(markdown: string): string[] {
  const prose = withoutCode(markdown).replace(/`[^`\n]*`/g, '');
  const inline = [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] as string);
  const references = [...prose.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map((m) => m[1] as string);
  return [...inline, ...references];
}

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of withoutCode(markdown).matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const text = (match[1] as string).replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

const files = markdownFiles(packageRoot);
const anchorCache = new Map<string, Set<string>>();
const anchorsOfFile = (file: string) => anchorCache.get(file) ?? anchorCache.set(file, anchorsOf(readFileSync(file, 'utf8'))).get(file);

describe('links in the Markdown files', () => {
  it('finds the README and the docs', () => {
    const names = files.map((file) => relative(packageRoot, file));
    expect(names).toEqual(
      expect.arrayContaining([
        'README.md',
        'bench/README.md',
        'docs/api.md',
        'docs/architecture.md',
        'docs/cli.md',
        'docs/configuration.md',
        'docs/decisions/README.md',
        'docs/instances.md',
        'docs/operations.md',
        'docs/playground.md',
        'docs/plugins.md',
        'docs/policies.md',
      ]),
    );
  });

  it('indexes every decision record in docs/decisions/README.md', () => {
    const folder = join(packageRoot, 'docs/decisions');
    const records = readdirSync(folder).filter((name) => /^\d{4}-.+\.md$/.test(name));
    const linked = new Set(linksOf(readFileSync(join(folder, 'README.md'), 'utf8')));
    expect(records.length).toBeGreaterThan(0);
    expect(records.filter((name) => !linked.has(name))).toEqual([]);
  });

  it('spells anchors as GitHub does', () => {
    expect([...anchorsOf("# V8's background threads: `--v8-pool-size=1`\n## Behind a proxy: `TRUST_PROXY`\n## A\n## A\n")]).toEqual([
      'v8s-background-threads---v8-pool-size1',
      'behind-a-proxy-trust_proxy',
      'a',
      'a-1',
    ]);
  });

  it.each(files.map((file) => [relative(packageRoot, file), file]))('%s links only files and headings of the repository that exist', (_name, file) => {
    const problems: string[] = [];
    for (const link of linksOf(readFileSync(file, 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // a URL (https:, mailto:)
      const [pathPart, anchor] = link.split('#') as [string, string | undefined];
      const path = decodeURIComponent(pathPart);
      if (path.startsWith('/')) {
        problems.push(`${link}: an absolute path`);
        continue;
      }
      const target = path === '' ? file : resolve(dirname(file), path);
      if (relative(packageRoot, target).startsWith('..')) problems.push(`${link}: outside the repository`);
      else if (!existsSync(target)) problems.push(`${link}: no such file`);
      else if (anchor !== undefined && target.endsWith('.md') && !anchorsOfFile(target)?.has(decodeURIComponent(anchor))) {
        problems.push(`${link}: no such heading`);
      }
    }
    expect(problems).toEqual([]);
  });
});
