// `email-trust facts`: the catalogue of checks, facts and codes policy authors write against (docs/facts.md
// is this command's output).
import type { Command } from 'commander';
import { registry } from '../../../plugins/index.js';
import { FactCatalog } from '../../engine/catalog.js';
import { type Catalogue, catalogueMarkdown, catalogueOf } from '../../policy/catalogue.js';

export function addFactsCommand(program: Command): void {
  program
    .command('facts')
    .description('print the checks a policy can enable, the facts its rules can read, and the codes (Markdown; docs/facts.md)')
    .option('--json', 'print {checks, facts} as JSON (snake_case keys)', false)
    .action((opts: { json: boolean }) => {
      const catalog = new FactCatalog(registry);
      if (opts.json) console.log(JSON.stringify(catalogueJson(catalogueOf(catalog)), null, 2));
      else process.stdout.write(catalogueMarkdown(catalog));
    });
}

/** The catalogue in the API's snake_case; a check's `defaults` keep the option names a policy writes. */
function catalogueJson({ checks, facts }: Catalogue) {
  return {
    checks: checks.map((c) => ({
      name: c.name,
      plugin: c.plugin,
      description: c.description,
      code: c.code,
      checked_type: c.checkedType,
      fires_when: c.firesWhen,
      defaults: c.defaults,
    })),
    facts: facts.map((f) => ({
      name: f.name,
      plugin: f.plugin,
      type: f.type,
      description: f.description,
      ...(f.values ? { values: f.values } : {}),
      ...(f.unknownValues ? { unknown_values: f.unknownValues } : {}),
      ...(f.expose ? { expose: f.expose } : {}),
    })),
  };
}
