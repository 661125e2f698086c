// The registry's rules for the plugins' own words (steps, codes, checked types), checked when plugins are
// registered: by plugins/index.ts for the service, by the plugin tester for a plugin under test. A word that
// is malformed or another plugin's fails there, naming the plugin; src/engine/words.ts lists them.
import type { Plugin } from '../src/engine/plugin.js';
import { CODE_GROUPS, SNAKE_CASE } from '../src/vocabulary.js';

export class WordError extends Error {
  override name = 'WordError';
}

/**
 * `plugins`, once their words are checked. Throws a WordError naming the plugin when a step, code or checked
 * type is not snake_case, a step or a code is declared by two plugins, a check is not named after one of its
 * plugin's steps, a check's code is not one its plugin declares, or a declared code is carried by no check.
 */
export function register(plugins: readonly Plugin[]): readonly Plugin[] {
  const stepOwner = new Map<string, string>();
  const codeOwner = new Map<string, string>();
  for (const plugin of plugins) {
    const where = `plugin ${plugin.id}`;
    for (const step of plugin.steps) {
      snakeCase(step, `${where}: step`);
      const owner = stepOwner.get(step);
      if (owner !== undefined) throw new WordError(`${where}: step ${step} is already ${owner === plugin.id ? 'listed' : `a step of plugin ${owner}`}`);
      stepOwner.set(step, plugin.id);
    }
    const declared = plugin.codes ?? {};
    for (const [code, spec] of Object.entries(declared)) {
      snakeCase(code, `${where}: code`);
      const owner = codeOwner.get(code);
      if (owner !== undefined) throw new WordError(`${where}: code ${code} is already declared by plugin ${owner}`);
      codeOwner.set(code, plugin.id);
      if (spec.error === undefined && spec.warning === undefined)
        throw new WordError(`${where}: code ${code} is neither an error (its group) nor a warning (its meaning)`);
      if (spec.error !== undefined && !(CODE_GROUPS as readonly string[]).includes(spec.error))
        throw new WordError(`${where}: code ${code} is in group ${spec.error}, not one of ${CODE_GROUPS.join(', ')}`);
      if (spec.warning !== undefined && spec.warning.trim() === '') throw new WordError(`${where}: warning code ${code} has no meaning`);
    }
    const carried = new Set<string>();
    for (const [name, check] of Object.entries(plugin.checks)) {
      if (!plugin.steps.includes(name)) throw new WordError(`${where}: check ${name} is not one of its steps (${plugin.steps.join(', ') || 'none'})`);
      if (check.code !== undefined) {
        if (!Object.hasOwn(declared, check.code)) throw new WordError(`${where}: check ${name} carries code ${check.code}, which is not in the plugin's codes`);
        carried.add(check.code);
      }
      if (check.checkedType !== undefined) snakeCase(check.checkedType, `${where}: check ${name}'s checked type`);
    }
    for (const code of Object.keys(declared)) {
      if (!carried.has(code)) throw new WordError(`${where}: code ${code} is declared but no check of the plugin carries it`);
    }
  }
  return plugins;
}

function snakeCase(word: string, what: string): void {
  if (!SNAKE_CASE.test(word)) throw new WordError(`${what} ${JSON.stringify(word)} is not snake_case (a-z, 0-9 and _, starting with a letter)`);
}
