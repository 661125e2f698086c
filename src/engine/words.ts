// The plugins' words: the steps, codes and checked types the registered plugins declare, in registry order
// (plugins/register.ts checks them when the plugins are registered). The JSON Schema enums, the OpenAPI
// document and docs/facts.md are built from these lists, so a new check's words need no edit outside its folder.
import { CODE_GROUPS, type CodeGroup } from '../vocabulary.js';
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

export function wordsOf(plugins: readonly Plugin[]): Words {
  const errors: ErrorCodeWord[] = [];
  const warnings: WarningCodeWord[] = [];
  for (const plugin of plugins) {
    for (const [code, spec] of Object.entries(plugin.codes ?? {})) {
      if (spec.error !== undefined) errors.push({ code, group: spec.error, plugin: plugin.id });
      if (spec.warning !== undefined) warnings.push({ code, meaning: spec.warning, plugin: plugin.id });
    }
  }
  const errorCodes = CODE_GROUPS.flatMap((group) => errors.filter((word) => word.group === group));
  const checks = plugins.flatMap((plugin) => Object.values(plugin.checks));
  return {
    steps: [...new Set(plugins.flatMap((plugin) => plugin.steps))],
    errorCodes,
    warningCodes: warnings,
    codes: [...new Set([...errorCodes.map((word) => word.code), ...warnings.map((word) => word.code)])],
    checkedTypes: [...new Set(checks.flatMap((check) => (check.checkedType === undefined ? [] : [check.checkedType])))],
  };
}
