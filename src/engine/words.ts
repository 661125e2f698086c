// The plugins' words: the steps, codes and checked types that the registered plugins declare, checked when
// the registry is built (plugins/index.ts) and listed in registry order. The JSON Schema enums, the OpenAPI
// document and docs/facts.md are built from them, so a new check's words need no edit outside its folder.
import { CODE_GROUPS, type CodeGroup, SNAKE_CASE } from '../vocabulary.js';
import { RegistryError } from './catalog.js';
import type { Plugin } from './plugin.js';

export interface ErrorCodeWord {
  code: string;
  group: CodeGroup;
  plugin: string;
}

export interface WarningCodeWord {
  code: string;
  meaning: string;
  plugin: string;
}

export interface Words {
  /** Every step: plugin by plugin in registry order, each plugin's in its own order. */
  readonly steps: readonly string[];
  /** The error codes, by group (CODE_GROUPS order), then in registry order. */
  readonly errorCodes: readonly ErrorCodeWord[];
  /** The warning codes, in registry order. */
  readonly warningCodes: readonly WarningCodeWord[];
  /** Every code a check may carry, each once: the error codes, then the codes that are only warnings. */
  readonly codes: readonly string[];
  /** Every checked type some check gives, each once, in registry order. */
  readonly checkedTypes: readonly string[];
}

/** The registry, once its words are checked: the one way plugins/index.ts and the plugin tester register plugins. */
export function register(plugins: readonly Plugin[]): readonly Plugin[] {
  wordsOf(plugins);
  return plugins;
}

/**
 * The words of `plugins`. Throws a RegistryError naming the plugin when one is not snake_case, a step or a
 * code is declared by two plugins, a check is not named after one of its plugin's steps, or a check's code
 * is not one its plugin declares (and each declared code must be carried by one of its checks).
 */
export function wordsOf(plugins: readonly Plugin[]): Words {
  const stepOwner = new Map<string, string>();
  const codeOwner = new Map<string, string>();
  const errors: ErrorCodeWord[] = [];
  const warnings: WarningCodeWord[] = [];
  const checkedTypes = new Set<string>();
  for (const plugin of plugins) {
    const where = `plugin ${plugin.id}`;
    for (const step of plugin.steps) {
      snakeCase(step, `${where}: step`);
      const owner = stepOwner.get(step);
      if (owner !== undefined) throw new RegistryError(`${where}: step ${step} is already ${owner === plugin.id ? 'listed' : `a step of plugin ${owner}`}`);
      stepOwner.set(step, plugin.id);
    }
    const declared = plugin.codes ?? {};
    for (const [code, spec] of Object.entries(declared)) {
      snakeCase(code, `${where}: code`);
      const owner = codeOwner.get(code);
      if (owner !== undefined) throw new RegistryError(`${where}: code ${code} is already declared by plugin ${owner}`);
      codeOwner.set(code, plugin.id);
      if (spec.error === undefined && spec.warning === undefined)
        throw new RegistryError(`${where}: code ${code} is neither an error (its group) nor a warning (its meaning)`);
      if (spec.error !== undefined) {
        if (!(CODE_GROUPS as readonly string[]).includes(spec.error))
          throw new RegistryError(`${where}: code ${code} is in group ${spec.error}, not one of ${CODE_GROUPS.join(', ')}`);
        errors.push({ code, group: spec.error, plugin: plugin.id });
      }
      if (spec.warning !== undefined) {
        if (spec.warning.trim() === '') throw new RegistryError(`${where}: warning code ${code} has no meaning`);
        warnings.push({ code, meaning: spec.warning, plugin: plugin.id });
      }
    }
    const carried = new Set<string>();
    for (const [name, check] of Object.entries(plugin.checks)) {
      if (!plugin.steps.includes(name)) throw new RegistryError(`${where}: check ${name} is not one of its steps (${plugin.steps.join(', ') || 'none'})`);
      if (check.code !== undefined) {
        if (!Object.hasOwn(declared, check.code))
          throw new RegistryError(`${where}: check ${name} carries code ${check.code}, which is not in the plugin's codes`);
        carried.add(check.code);
      }
      if (check.checkedType !== undefined) {
        snakeCase(check.checkedType, `${where}: check ${name}'s checked type`);
        checkedTypes.add(check.checkedType);
      }
    }
    for (const code of Object.keys(declared)) {
      if (!carried.has(code)) throw new RegistryError(`${where}: code ${code} is declared but no check of the plugin carries it`);
    }
  }
  const errorCodes = CODE_GROUPS.flatMap((group) => errors.filter((word) => word.group === group));
  return {
    steps: [...stepOwner.keys()],
    errorCodes,
    warningCodes: warnings,
    codes: [...new Set([...errorCodes.map((word) => word.code), ...warnings.map((word) => word.code)])],
    checkedTypes: [...checkedTypes],
  };
}

function snakeCase(word: string, what: string): void {
  if (!SNAKE_CASE.test(word)) throw new RegistryError(`${what} ${JSON.stringify(word)} is not snake_case (a-z, 0-9 and _, starting with a letter)`);
}
