// projects: a name, a sandbox flag, the policy the project's requests are decided by, and the browser
// origins its public key may be used from.
import type { Knex } from 'knex';
import { isUniqueViolation, newId, toBoolean, toNumber } from './sql-values.js';

export interface Project {
  id: string;
  name: string;
  sandbox: boolean;
  /** Name of a policy in `policies/`. */
  policy: string;
  /** YAML content when the project's policy came from a file; null otherwise. */
  policySource: string | null;
  /** Origins (`https://shop.example`) whose pages may call POST /v1/fingerprint with the public key; none by default. */
  allowedOrigins: string[];
  /** Raised by every change to the project's own domain lists (project-lists.ts): a service reloads them when it moves. */
  listsRevision: number;
  /** Verify and intelligence calls allowed per calendar month (UTC); null for no quota (the default). */
  monthlyQuota: number | null;
  /** Whether its labels count in, and its reputation facts read, the deployment's shared counts when SHARED_REPUTATION=on (default true). */
  sharesReputation: boolean;
  createdAt: number;
}

export interface NewProject {
  name: string;
  policy: string;
  sandbox?: boolean;
  policySource?: string | null;
}

export type ProjectChanges = Partial<Pick<Project, 'sandbox' | 'policy' | 'policySource' | 'allowedOrigins' | 'monthlyQuota' | 'sharesReputation'>>;

export class ProjectNameTakenError extends Error {
  constructor(readonly projectName: string) {
    super(`a project named "${projectName}" already exists`);
  }
}

export interface Projects {
  create(project: NewProject, now?: number): Promise<Project>;
  list(): Promise<Project[]>;
  get(id: string): Promise<Project | null>;
  getByName(name: string): Promise<Project | null>;
  /**
   * Changes a project's settings; returns the updated project, or null when there is none. This
   * process's key cache forgets the project at once; another running service holds it with its cached
   * key lookups for up to 5 s (keys.ts), so it applies the change within 5 s.
   */
  update(id: string, changes: ProjectChanges): Promise<Project | null>;
  /**
   * Whether any project allows this browser origin (a CORS preflight carries no key to say which). The
   * union is re-read at most every 5 s, at once after an update in this process.
   */
  anyAllowsOrigin(origin: string): Promise<boolean>;
}

interface ProjectRow {
  id: string;
  name: string;
  sandbox: unknown;
  policy: string;
  policy_source: string | null;
  allowed_origins: string | null;
  lists_revision: unknown;
  monthly_quota: unknown;
  shares_reputation?: unknown;
  created_at: unknown;
}

export function projectFromRow(row: ProjectRow): Project {
  return {
    id: row.id,
    name: row.name,
    sandbox: toBoolean(row.sandbox),
    policy: row.policy,
    policySource: row.policy_source ?? null,
    allowedOrigins: originsFromColumn(row.allowed_origins),
    listsRevision: toNumber(row.lists_revision ?? 0),
    monthlyQuota: row.monthly_quota === null || row.monthly_quota === undefined ? null : toNumber(row.monthly_quota),
    sharesReputation: row.shares_reputation === undefined || row.shares_reputation === null ? true : toBoolean(row.shares_reputation),
    createdAt: toNumber(row.created_at),
  };
}

const PROJECT_COLUMNS = [
  'id',
  'name',
  'sandbox',
  'policy',
  'policy_source',
  'allowed_origins',
  'lists_revision',
  'monthly_quota',
  'shares_reputation',
  'created_at',
];

const ORIGINS_TTL_MS = 5_000;

/** The column holds a JSON array of origins, or null for none. */
function originsFromColumn(value: string | null | undefined): string[] {
  if (!value) return [];
  const parsed: unknown = JSON.parse(value);
  return Array.isArray(parsed) ? parsed.filter((origin): origin is string => typeof origin === 'string') : [];
}

/** `onChange` is told after an update, so caches holding projects can forget them. */
export function createProjects(knex: Knex, onChange: () => void = () => {}): Projects {
  const table = () => knex('projects');
  // The union every project allows; concurrent requests after it expires share one read.
  let origins: { allowed: Promise<Set<string>>; until: number } | null = null;

  function allowedOrigins(): Promise<Set<string>> {
    // Date.now, not performance.now: the clock the rest of the store reads (and tests move).
    if (origins && origins.until > Date.now()) return origins.allowed;
    const read = table()
      .select('allowed_origins')
      .whereNotNull('allowed_origins')
      .then((rows: Pick<ProjectRow, 'allowed_origins'>[]) => new Set(rows.flatMap((row) => originsFromColumn(row.allowed_origins))));
    const entry = { allowed: read, until: Date.now() + ORIGINS_TTL_MS };
    origins = entry;
    // A failed read is not kept: the next request tries again.
    read.catch(() => {
      if (origins === entry) origins = null;
    });
    return read;
  }

  async function get(id: string): Promise<Project | null> {
    const row = (await table().select(PROJECT_COLUMNS).where({ id }).first()) as ProjectRow | undefined;
    return row ? projectFromRow(row) : null;
  }

  return {
    async create(project, now = Date.now()) {
      const created: Project = {
        id: newId('prj'),
        name: project.name,
        sandbox: project.sandbox ?? false,
        policy: project.policy,
        policySource: project.policySource ?? null,
        allowedOrigins: [],
        listsRevision: 0,
        monthlyQuota: null,
        sharesReputation: true,
        createdAt: now,
      };
      try {
        await table().insert({
          id: created.id,
          name: created.name,
          sandbox: created.sandbox,
          policy: created.policy,
          policy_source: created.policySource,
          created_at: created.createdAt,
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw new ProjectNameTakenError(project.name);
        throw error;
      }
      return created;
    },

    async list() {
      const rows = (await table()
        .select(PROJECT_COLUMNS)
        .orderBy([{ column: 'created_at' }, { column: 'name' }])) as ProjectRow[];
      return rows.map(projectFromRow);
    },

    get,

    async getByName(name) {
      const row = (await table().select(PROJECT_COLUMNS).where({ name }).first()) as ProjectRow | undefined;
      return row ? projectFromRow(row) : null;
    },

    async update(id, changes) {
      const patch: Partial<ProjectRow> = {};
      if (changes.sandbox !== undefined) patch.sandbox = changes.sandbox;
      if (changes.policy !== undefined) patch.policy = changes.policy;
      if (changes.policySource !== undefined) patch.policy_source = changes.policySource;
      if (changes.allowedOrigins !== undefined) patch.allowed_origins = changes.allowedOrigins.length > 0 ? JSON.stringify(changes.allowedOrigins) : null;
      if (changes.monthlyQuota !== undefined) patch.monthly_quota = changes.monthlyQuota;
      if (changes.sharesReputation !== undefined) patch.shares_reputation = changes.sharesReputation;
      if (Object.keys(patch).length > 0) {
        await table().where({ id }).update(patch);
        origins = null;
        onChange();
      }
      return get(id);
    },

    async anyAllowsOrigin(origin) {
      return (await allowedOrigins()).has(origin);
    },
  };
}
