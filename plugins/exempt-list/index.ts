// The project's `exempt` list (`email-trust project lists add P exempt FILE`): domains a policy's exemptions
// can let through the checks they name (`when: { project_list: exempt }`, docs/policies.md). Kept in the
// database like the other project lists, so partners are added without editing or reloading the policy.
import type { FactValues, Plugin } from '../../src/engine/plugin.js';
import { domainAndParents } from '../../src/host-name.js';
import { asciiDomainOf } from '../plugin-data.js';

export const EXEMPT_LIST = 'exempt';

const plugin: Plugin = {
  id: 'exempt-list',
  description: "Whether the address's domain, or a parent of it, is on the project's own `exempt` list.",
  steps: [],
  facts: {
    on_exempt_list: {
      type: 'boolean',
      description: "The domain (ASCII form) or a parent of it up to the registrable domain is on the project's exempt list; null without a valid domain.",
    },
  },
  checks: {},
  needs: ['structure', 'idn', 'tld'],
  projectLists: [EXEMPT_LIST],
  async run(ctx): Promise<FactValues> {
    if ((await ctx.fact('valid_address_format')) !== true) return {};
    const ascii = await asciiDomainOf(ctx);
    if (ascii === null) return {};
    const registrable = await ctx.fact('registrable_domain');
    const listed = await ctx.projectList(EXEMPT_LIST);
    const names = domainAndParents(ascii, typeof registrable === 'string' ? registrable : null);
    return { on_exempt_list: names.some((name) => listed.has(name)) };
  },
};

export default plugin;
