// `email-trust facts`: the catalogue of checks, facts and codes policy authors write against (docs/facts.md
// is this command's output).
import type { Command } from 'commander';
import { registry } from '../../../plugins/index.js';
import { FactCatalog } from '../../engine/catalog.js';
import { catalogueMarkdown, catalogueOf } from '../../policy/catalogue.js';

export function addFactsCommand(program: Command): void {
  program
    .command('facts')
    .description('print the checks a policy can enable, the facts its rules can read, and the codes (Markdown; docs/facts.md)')
    .option('--json', 'print {checks, facts} as JSON', false)
    .action((opts: { json: boolean }) => {
      const catalog = new FactCatalog(registry);
      if (opts.json) console.log(JSON.stringify(catalogueOf(catalog), null, 2));
      else process.stdout.write(catalogueMarkdown(catalog));
    });
}
