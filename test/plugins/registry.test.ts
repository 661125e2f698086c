// The registry's own rules: every plugin is a folder with a test, facts are owned once, and every
// step, code and checked type a plugin declares is one the interface defines.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registry } from '../../plugins/index.js';
import { FactCatalog } from '../../src/engine/catalog.js';
import { packageRoot } from '../../src/paths.js';
import { CHECK_CODES, CHECKED_TYPES, STEPS } from '../../src/vocabulary.js';

describe('the plugin registry', () => {
  it('is sorted by id and builds a catalog (no fact emitted twice, every need registered)', () => {
    const ids = registry.map((p) => p.id);
    expect(ids).toEqual([...ids].sort());
    expect(() => new FactCatalog(registry)).not.toThrow();
  });

  describe.each(registry.map((p) => [p.id, p] as const))('plugin %s', (id, plugin) => {
    it('lives in plugins/<id>/ with a README and a test table', () => {
      expect(id).toMatch(/^[a-z][a-z0-9-]*$/);
      expect(existsSync(join(packageRoot, 'plugins', id, 'index.ts'))).toBe(true);
      expect(existsSync(join(packageRoot, 'plugins', id, 'README.md'))).toBe(true);
      expect(existsSync(join(packageRoot, 'plugins', id, `${id}.test.ts`))).toBe(true);
    });

    it('declares snake_case facts with a meaning', () => {
      for (const [name, spec] of Object.entries(plugin.facts)) {
        expect(name).toMatch(/^[a-z][a-z0-9_]*$/);
        expect(spec.description.length, `${id}.${name} has no description`).toBeGreaterThan(5);
      }
    });

    it("declares only the spec's steps, codes and checked types", () => {
      for (const step of plugin.steps) expect(STEPS).toContain(step);
      for (const [name, check] of Object.entries(plugin.checks)) {
        expect(plugin.steps, `${id}: check ${name} is not among its steps`).toContain(name);
        if (check.code) expect(CHECK_CODES).toContain(check.code);
        if (check.checkedType) expect(CHECKED_TYPES).toContain(check.checkedType);
      }
    });
  });
});
