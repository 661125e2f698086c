// The layering docs/architecture.md states, held by the imports themselves: every import and export-from
// of src/ and plugins/ (tests aside) is read as text and must point down. A new import against the rule
// fails here, named file → import, so the layering cannot drift back unnoticed.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';

/** The layers, top to bottom; plugins/<id>/ and plugins/*.ts are layers of their own (see `layerOf`). */
type Layer =
  | 'cli'
  | 'http'
  | 'service'
  | 'policy'
  | 'network'
  | 'store'
  | 'engine'
  | 'contract'
  | 'leaf'
  | 'registry'
  | 'plugin-helper'
  | 'plugin'
  | `plugin:${string}`;

/** Modules every layer may use: environment → Config, the ajv instance, paths, the interface's vocabularies, host names, … */
const LEAF_MODULES = [
  'src/abort.ts',
  'src/address-text.ts',
  'src/config.ts',
  // The installed data lists' layout: written by `data update`, read by plugin-data.ts at load.
  'src/data-lists.ts',
  'src/echoed-input.ts',
  'src/host-name.ts',
  'src/ip-prefix.ts',
  'src/label-histogram.ts',
  'src/log-throttle.ts',
  'src/metrics.ts',
  'src/paths.ts',
  // Pure (names and edit distances): the policy's problems and the schemas' messages both hint with it.
  'src/policy/did-you-mean.ts',
  'src/schemas.ts',
  'src/vocabulary.ts',
];

/**
 * What each layer may import at run time, besides its own layer (a plugin: its own folder): any layer
 * below it, but the database is reached through the services (http knows the store by its types only).
 */
const RUN_TIME: Record<string, readonly Layer[]> = {
  cli: ['http', 'service', 'policy', 'network', 'store', 'engine', 'contract', 'leaf', 'registry', 'plugin-helper'],
  http: ['service', 'policy', 'network', 'engine', 'contract', 'leaf'],
  service: ['policy', 'network', 'store', 'engine', 'contract', 'leaf'],
  policy: ['engine', 'contract', 'leaf'],
  network: ['store', 'contract', 'leaf'],
  store: ['contract', 'leaf'],
  engine: ['contract', 'leaf'],
  contract: ['leaf'],
  leaf: [],
  registry: ['plugin', 'plugin-helper', 'contract', 'leaf'],
  'plugin-helper': ['contract', 'leaf'],
  plugin: ['plugin-helper', 'contract', 'leaf'],
};

/** What a layer may also know by its types alone (`import type`, or every name imported as `type`). */
const TYPES_ONLY: Record<string, readonly Layer[]> = {
  http: ['store'],
  service: [],
  policy: ['store'],
  network: ['engine'],
  store: ['engine'],
  leaf: ['contract'],
};

/**
 * Imports against the rule that other branches of issue 47 remove; empty this list once they are merged.
 * removed by issue 47 (store47/engine47)
 */
const ALLOWED_FOR_NOW: readonly string[] = [];

function layerOf(file: string): Layer | null {
  if (LEAF_MODULES.includes(file)) return 'leaf';
  if (file === 'src/engine/plugin.ts') return 'contract';
  if (file === 'plugins/index.ts') return 'registry';
  const plugin = /^plugins\/([^/]+)\//.exec(file);
  if (plugin) return `plugin:${plugin[1]}`;
  if (/^plugins\/[^/]+\.ts$/.test(file)) return 'plugin-helper';
  const folder = /^src\/(cli|http|service|policy|network|store|engine)\//.exec(file);
  return folder ? (folder[1] as Layer) : null;
}

const general = (layer: Layer): string => (layer.startsWith('plugin:') ? 'plugin' : layer);

interface Import {
  specifier: string;
  typeOnly: boolean;
}

/** The relative imports of a module's text: import/export … from, side-effect imports and import(). */
function importsOf(text: string): Import[] {
  const code = text
    .split('\n')
    .filter((line) => !/^\s*(\/\/|\/\*|\*)/.test(line))
    .join('\n');
  const found: Import[] = [];
  for (const match of code.matchAll(/(?:^|[\s;])(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]/g)) {
    const [, , typeKeyword, names = '', specifier = ''] = match;
    const braced = /^\{([\s\S]*)\}$/.exec(names.trim());
    const everyNameTyped =
      braced !== null &&
      braced[1]
        ?.split(',')
        .map((name) => name.trim())
        .filter((name) => name !== '')
        .every((name) => name.startsWith('type ')) === true;
    found.push({ specifier, typeOnly: typeKeyword !== undefined || everyNameTyped });
  }
  for (const match of code.matchAll(/(?:^|[\s;])import\s*['"]([^'"]+)['"]/g)) found.push({ specifier: match[1] ?? '', typeOnly: false });
  for (const match of code.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push({ specifier: match[1] ?? '', typeOnly: false });
  return found.filter((i) => i.specifier.startsWith('.'));
}

function sourceFiles(folder: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(join(packageRoot, folder), { withFileTypes: true })) {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'data') files.push(...sourceFiles(path));
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts')) files.push(path);
  }
  return files;
}

/** Every import against the layering, as "file → imported file". */
function layeringViolations(files: readonly string[], read: (file: string) => string): string[] {
  const violations: string[] = [];
  for (const file of files) {
    const from = layerOf(file);
    if (from === null) continue;
    for (const { specifier, typeOnly } of importsOf(read(file))) {
      const target = relative(packageRoot, resolve(packageRoot, dirname(file), specifier)).replace(/\.js$/, '.ts');
      const to = layerOf(target);
      if (to === null || to === from) continue;
      const allowed = [...(RUN_TIME[general(from)] ?? []), ...(typeOnly ? (TYPES_ONLY[general(from)] ?? []) : [])];
      if (!allowed.includes(general(to) as Layer)) violations.push(`${file} → ${target}${typeOnly ? ' (types)' : ''}`);
    }
  }
  return violations;
}

describe('the layering of src/ and plugins/', () => {
  const files = [...sourceFiles('src'), ...sourceFiles('plugins')];
  const read = (file: string) => readFileSync(join(packageRoot, file), 'utf8');

  it('finds the modules and their imports', () => {
    expect(files).toContain('src/http/middleware/errors.ts');
    expect(files).toContain('plugins/disposable-infrastructure/index.ts');
    expect(importsOf(read('src/http/app.ts')).length).toBeGreaterThan(5);
  });

  it('has no import that points up or sideways, but for the named ones other branches remove', () => {
    const violations = layeringViolations(files, read).filter((v) => !ALLOWED_FOR_NOW.includes(v.replace(/ \(types\)$/, '')));
    expect(violations).toEqual([]);
  });

  it('keeps no allowance for an import that is gone', () => {
    const found = new Set(layeringViolations(files, read).map((v) => v.replace(/ \(types\)$/, '')));
    expect(ALLOWED_FOR_NOW.filter((allowed) => !found.has(allowed))).toEqual([]);
  });

  it("has no plugin read another plugin's data files by path", () => {
    const reads: string[] = [];
    for (const file of files) {
      const own = /^plugins\/([^/]+)\//.exec(file)?.[1];
      if (own === undefined) continue;
      for (const match of read(file).matchAll(/\b(?:readList|readDataFile|readSources|dataLists)\(\s*['"]([^'"]+)['"]/g)) {
        if (match[1] !== own) reads.push(`${file} reads plugins/${match[1]}/data`);
      }
    }
    expect(reads).toEqual([]);
  });

  it('tells imports against the rule from imports along it', () => {
    const modules: Record<string, string> = {
      'src/config.ts': "import { parseAddress } from './service/client-ip.js';",
      'src/http/middleware/errors.ts': "import type { Store } from '../../store/database.js';\nimport { isUnavailable } from '../../store/unavailable.js';",
      'plugins/alpha/index.ts': "import { readList } from '../plugin-data.js';\nimport { other } from '../beta/index.js';",
      'plugins/risk/index.ts': "import { WINDOWS } from '../velocity/windows.js';\nimport { list } from '../government/index.js';",
      'src/engine/plugin.ts': "export { type Step } from '../vocabulary.js';\nimport { x } from '../store/keys.js';",
      'src/service/verify.ts': "// import { nothing } from '../cli/main.js';\nconst loaded = await import('../cli/main.js');",
    };
    expect(layeringViolations(Object.keys(modules), (file) => modules[file] ?? '')).toEqual([
      'src/config.ts → src/service/client-ip.ts',
      'src/http/middleware/errors.ts → src/store/unavailable.ts',
      'plugins/alpha/index.ts → plugins/beta/index.ts',
      'plugins/risk/index.ts → plugins/velocity/windows.ts',
      'plugins/risk/index.ts → plugins/government/index.ts',
      'src/engine/plugin.ts → src/store/keys.ts',
      'src/service/verify.ts → src/cli/main.ts',
    ]);
  });
});
