// The domain-list checks (disposable, known-abuse, spam-trap) differ only in data: one factory makes each
// of them. A listed-domain plugin has a flag fact, a match fact and one check, the project's own entries
// (the check's `add` and `exempt` options, and the project lists `<id>` and `not-<id>` kept in the
// database), and looks the domain and its parents (up to the registrable domain) up in its lists, then,
// when given, asks other plugins that list domains (known-abuse: the DNS blocklists; known-abuse and
// spam-trap: the project's labels, when the check's `labelled_at_least` is set).

import type { CheckOptions, Condition, DataList, FactValues, Plugin, PluginContext } from '../src/engine/plugin.js';
import { domainAndParents } from '../src/host-name.js';
import { asciiDomainOf } from './plugin-data.js';

const MAX_ENTRIES = 10_000;

const domainListSchema = (description: string) => ({
  type: 'array',
  maxItems: MAX_ENTRIES,
  description,
  items: { type: 'string', minLength: 1, maxLength: 253, pattern: '^[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$' },
});

/** JSON Schema of a domain-list check's options: `{ add, exempt }`, each up to 10,000 lower-case ASCII domains, and those of its other listings. */
function projectListsSchema(what: string, listedBy: readonly ListedBy[]): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      add: domainListSchema(`Domains the project treats as ${what}, with their subdomains (lower-case, punycode for IDN).`),
      exempt: domainListSchema(`Domains the project never treats as ${what}, with their subdomains (lower-case, punycode for IDN).`),
      ...Object.assign({}, ...listedBy.map((by) => by.options ?? {})),
    },
    additionalProperties: false,
  };
}

const PROJECT_LISTS_DEFAULTS: CheckOptions = { add: [], exempt: [] };

interface ProjectLists {
  add: ReadonlySet<string>;
  exempt: ReadonlySet<string>;
}

// Keyed by the options object, which a compiled policy keeps for its lifetime: sets are built once per policy.
const projectListsByOptions = new WeakMap<CheckOptions, ProjectLists>();

function domainSet(value: unknown): Set<string> {
  if (!Array.isArray(value)) return new Set();
  return new Set(value.filter((entry): entry is string => typeof entry === 'string').map((entry) => entry.toLowerCase()));
}

function projectLists(options: CheckOptions): ProjectLists {
  let lists = projectListsByOptions.get(options);
  if (!lists) {
    lists = { add: domainSet(options.add), exempt: domainSet(options.exempt) };
    projectListsByOptions.set(options, lists);
  }
  return lists;
}

/**
 * The names the address's domain is looked up under: its ASCII form, then each parent up to the
 * registrable domain. Null when there is nothing to look up (invalid address, literal, no ASCII form).
 */
async function lookupNames(ctx: PluginContext): Promise<string[] | null> {
  if ((await ctx.fact('valid_address_format')) !== true) return null;
  const ascii = await asciiDomainOf(ctx);
  if (ascii === null) return null;
  const registrable = await ctx.fact('registrable_domain');
  return domainAndParents(ascii, typeof registrable === 'string' ? registrable : null);
}

/** The project's own entries: from the policy's options and from its lists in the database alike. */
interface OwnEntries {
  add: readonly ReadonlySet<string>[];
  exempt: readonly ReadonlySet<string>[];
}

/** Exempted: by the project's own entries or by `never`, whatever any list says. */
const EXEMPTED = false;

/**
 * The entry that matched, EXEMPTED, or null when no list has the domain: the project's own entries first
 * (policy options and project lists alike), most specific name first, exempt winning a tie; then `never`
 * (names no list may flag); then the shipped list.
 */
function matchListed(names: readonly string[], own: OwnEntries, shipped: ReadonlySet<string>, never?: ReadonlySet<string>): string | null | typeof EXEMPTED {
  for (const name of names) {
    if (own.exempt.some((set) => set.has(name))) return EXEMPTED;
    if (own.add.some((set) => set.has(name))) return name;
  }
  if (never && names.some((name) => never.has(name))) return EXEMPTED;
  return names.find((name) => shipped.has(name)) ?? null;
}

/** Another plugin that lists domains: asked only when no list has the domain and the project has not exempted it. */
export interface ListedBy {
  plugin: string;
  /** Its facts `lists` reads, in order. */
  facts: readonly string[];
  /** Whether they list the domain, with the check's options. */
  lists(values: readonly unknown[], options: CheckOptions): boolean;
  /** Whether to ask at all with these options (default: always): a listing the policy has not turned on costs nothing. */
  asks?(options: CheckOptions): boolean;
  /** The match it gives: the registrable domain (a DNS blocklist's question) or the domain itself (labels count it). */
  match: 'registrable' | 'domain';
  /** Its options' JSON Schema properties, beside `add` and `exempt`. */
  options?: Record<string, unknown>;
}

const MAX_LABELLED_AT_LEAST = 1_000_000;

/**
 * A listing from the project's labels (the reputation plugin's domain_label_counts: labels of the domain in all):
 * listed when the domain has at least the check's `labelled_at_least` labels of `labels`; off without the option.
 */
export function listedByLabels(labels: readonly string[]): ListedBy {
  const names = labels.join(', ');
  return {
    plugin: 'reputation',
    facts: ['domain_label_counts'],
    asks: (options) => typeof options.labelled_at_least === 'number',
    lists: ([counts], options) => {
      if (counts === null || typeof counts !== 'object') return false;
      const held = counts as Record<string, unknown>;
      const n = labels.reduce((sum, label) => sum + (typeof held[label] === 'number' ? (held[label] as number) : 0), 0);
      return n >= (options.labelled_at_least as number);
    },
    match: 'domain',
    options: {
      labelled_at_least: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_LABELLED_AT_LEAST,
        description: `Lists a domain whose addresses the project's feedback labelled ${names} at least this many times in all (off when absent).`,
      },
    },
  };
}

export interface ListedDomainSpec {
  /** Plugin id (its folder). */
  id: string;
  description: string;
  /** The check's name, a step identifier, and its checked type. */
  check: string;
  checkDescription: string;
  /** The flag fact (`is_<what>_domain`) and what it means. */
  flag: string;
  flagDescription: string;
  /** The fact naming the entry that matched (`<what>_match`). */
  match: string;
  /** What listed domains are, for the options' descriptions ("disposable", "abuse sources"). */
  what: string;
  /** The code the check reports (not in the interface, which gives these checks none): a classification error, or a warning meaning `codeMeaning`. */
  code: string;
  codeMeaning: string;
  /** The shipped list. */
  listed: ReadonlySet<string>;
  /** Names the shipped list never flags, whatever it says (big providers, privacy relays). */
  never?: ReadonlySet<string>;
  /** The plugin's data declaration (see plugin-data.ts dataLists). */
  data: readonly DataList[];
  /**
   * A condition on another plugin's facts that, when it holds, keeps the check from firing (the flag still
   * says what the list says): a listed one-slip typo of a big provider (gmial.com) is the typo check's business.
   */
  unless?: { plugin: string; when: Condition };
  /** Other plugins that list domains too (a DNS blocklist, the project's labels), asked in turn (see ListedBy). */
  listedBy?: readonly ListedBy[];
}

/** The project list of domains a listed-domain plugin never flags (`not-disposable`); its additions are the list named by its id. */
export function exemptListName(id: string): string {
  return `not-${id}`;
}

/** A plugin flagging domains on a list, with the project's additions and exemptions. */
export function listedDomainPlugin(spec: ListedDomainSpec): Plugin {
  const exemptList = exemptListName(spec.id);
  const listedBy = spec.listedBy ?? [];
  const others = listedBy.map((by) => by.plugin).join(' or ');
  return {
    id: spec.id,
    description: spec.description,
    steps: [spec.check],
    codes: { [spec.code]: { error: 'classification', warning: spec.codeMeaning } },
    facts: {
      [spec.flag]: { type: 'boolean', description: spec.flagDescription, expose: 'flag' },
      [spec.match]: {
        type: 'string',
        description:
          listedBy.length > 0
            ? `The listed (or project-added) domain that matched, or the domain ${others} lists; null when not listed.`
            : 'The listed (or project-added) domain that matched; null when not listed.',
      },
    },
    checks: {
      [spec.check]: {
        description: spec.checkDescription,
        when: spec.unless
          ? { all: [{ fact: spec.flag, operator: 'equal', value: true }, { not: spec.unless.when }] }
          : { fact: spec.flag, operator: 'equal', value: true },
        code: spec.code,
        checkedType: spec.check,
        options: projectListsSchema(spec.what, listedBy),
        defaults: PROJECT_LISTS_DEFAULTS,
      },
    },
    needs: ['structure', 'idn', 'tld', ...(spec.unless ? [spec.unless.plugin] : []), ...listedBy.map((by) => by.plugin)],
    projectLists: [spec.id, exemptList],
    data: spec.data,
    async run(ctx): Promise<FactValues> {
      const names = await lookupNames(ctx);
      if (names === null) return {};
      const checkOptions = ctx.options(spec.check);
      const options = projectLists(checkOptions);
      const [added, exempt] = await Promise.all([ctx.projectList(spec.id), ctx.projectList(exemptList)]);
      const own = { add: [options.add, added], exempt: [options.exempt, exempt] };
      let matched = matchListed(names, own, spec.listed, spec.never);
      for (const by of listedBy) {
        if (matched !== null) break;
        if (by.asks && !by.asks(checkOptions)) continue;
        if (by.lists(await ctx.facts(by.facts), checkOptions)) matched = (by.match === 'domain' ? names[0] : names[names.length - 1]) as string;
      }
      return matched === EXEMPTED ? { [spec.flag]: false, [spec.match]: null } : { [spec.flag]: matched !== null, [spec.match]: matched };
    },
  };
}
