// The Dockerfile and compose.yaml are not run here (no Docker daemon); this reads them as a reviewer
// would: the runtime stage holds production dependencies only, runs as a non-root user and checks
// /healthz; every file it copies exists; compose's two instances reach its PostgreSQL and Redis by
// service name and share one fingerprint key ring.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SERVE_NODE_FLAGS } from '../src/cli/serve-flags.js';
import { packageRoot } from '../src/paths.js';

interface Stage {
  name: string;
  lines: string[];
}

/** The Dockerfile's stages, each with its instructions (continuation lines joined, comments dropped). */
function stages(): Stage[] {
  const text = readFileSync(join(packageRoot, 'Dockerfile'), 'utf8').replace(/\\\n\s*/g, ' ');
  const found: Stage[] = [];
  for (const line of text.split('\n').map((l) => l.trim())) {
    if (line === '' || line.startsWith('#')) continue;
    const from = /^FROM\s+\S+(?:\s+AS\s+(\S+))?/i.exec(line);
    if (from) found.push({ name: from[1] ?? `stage${found.length}`, lines: [] });
    found.at(-1)?.lines.push(line);
  }
  return found;
}

describe('Dockerfile', () => {
  const all = stages();
  const runtime = all.at(-1) as Stage;
  const instruction = (stage: Stage, name: string) => stage.lines.filter((line) => line.toUpperCase().startsWith(`${name} `));

  it('is multi-stage: TypeScript is compiled in a build stage, not in the image that runs', () => {
    expect(all.length).toBeGreaterThanOrEqual(2);
    expect(all.slice(0, -1).some((stage) => stage.lines.some((line) => /\btsc -p tsconfig\.json\b/.test(line)))).toBe(true);
    expect(runtime.lines.join('\n')).not.toMatch(/\btsc\b|npm (ci|install)|apt-get|g\+\+/);
    expect(instruction(runtime, 'COPY')).toContain('COPY --from=build /app/dist dist');
  });

  it('runs with production dependencies only', () => {
    const from = /^COPY --from=(\S+) \/app\/node_modules node_modules$/.exec(instruction(runtime, 'COPY').find((line) => line.includes('node_modules')) ?? '');
    expect(from).not.toBeNull();
    const source = all.find((stage) => stage.name === from?.[1]) as Stage;
    expect(source.lines.some((line) => /npm ci --omit=dev\b/.test(line))).toBe(true);
  });

  it('runs as a non-root user and checks /healthz', () => {
    const [user] = instruction(runtime, 'USER');
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^USER\s+(root|0)(:|$)/);
    const [healthcheck] = instruction(runtime, 'HEALTHCHECK');
    expect(healthcheck).toContain('/healthz');
    expect(runtime.lines.indexOf(user as string)).toBeLessThan(runtime.lines.findIndex((line) => line.startsWith('ENTRYPOINT')));
  });

  it('listens on every interface inside the container and starts `serve`', () => {
    expect(runtime.lines.join('\n')).toMatch(/ENV .*HOST=0\.0\.0\.0/);
    expect(instruction(runtime, 'ENTRYPOINT')).toEqual([
      `ENTRYPOINT ${JSON.stringify(['node', ...SERVE_NODE_FLAGS, 'bin/email-trust.js']).replaceAll(',', ', ')}`,
    ]);
    expect(instruction(runtime, 'CMD')).toEqual(['CMD ["serve"]']);
  });

  it('copies only files that exist and that .dockerignore lets through', () => {
    const ignored = readFileSync(join(packageRoot, '.dockerignore'), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'));
    const sources = all
      .flatMap((stage) => instruction(stage, 'COPY').filter((line) => !line.includes('--from=')))
      .flatMap((line) => line.split(/\s+/).slice(1, -1));
    expect(sources.length).toBeGreaterThan(5);
    for (const source of sources) {
      expect(existsSync(join(packageRoot, source)), `${source} is copied but missing`).toBe(true);
      expect(ignored, `${source} is copied but .dockerignore drops it`).not.toContain(source);
    }
  });

  it('brings what the service reads at run time: policies, schemas, pages, plugin data, the RDAP bootstrap file', () => {
    const copied = instruction(runtime, 'COPY').map((line) => line.split(/\s+/).at(-2));
    expect(copied).toEqual(expect.arrayContaining(['package.json', 'bin', 'policies', 'schemas', 'public', 'plugins', 'src/network/data']));
  });

  it('compiles the IP tables into the cache before it drops to the service user, with a command that does so here', async () => {
    const lines = runtime.lines;
    const warm = lines.findIndex((line) => line.startsWith('RUN node -e') && line.includes('loadTables'));
    expect(warm).toBeGreaterThan(lines.indexOf('COPY --from=build /app/dist dist'));
    expect(warm).toBeGreaterThan(lines.indexOf('COPY plugins plugins'));
    expect(warm).toBeLessThan(lines.indexOf('USER node'));
    const module = /import\('\.\/(\S+?)'\)/.exec(lines[warm] as string)?.[1] as string;
    const lists = (await import(join(packageRoot, module))) as { loadTables?: unknown };
    expect(typeof lists.loadTables).toBe('function');
  });
});

describe('compose.yaml', () => {
  // biome-ignore lint/suspicious/noExplicitAny: a compose file is read field by field
  const compose: any = parse(readFileSync(join(packageRoot, 'compose.yaml'), 'utf8'), { merge: true });
  const services = compose.services as Record<
    string,
    { environment?: Record<string, string>; depends_on?: Record<string, unknown>; ports?: string[]; command?: string[] }
  >;
  const instances = Object.entries(services).filter(([, service]) => service.ports);

  it('runs two instances of the service, PostgreSQL and Redis', () => {
    expect(instances.map(([name]) => name)).toEqual(['email-trust-1', 'email-trust-2']);
    expect(Object.keys(services)).toEqual(expect.arrayContaining(['postgres', 'redis']));
    expect(new Set(instances.map(([, service]) => service.ports?.[0]?.split(':').at(-2))).size).toBe(2);
  });

  it.each(['email-trust-1', 'email-trust-2'])('%s reaches PostgreSQL and Redis by service name, after the migration', (name) => {
    const service = services[name] as (typeof services)[string];
    const environment = service.environment ?? {};
    expect(new URL(environment.DATABASE_URL ?? '').hostname).toBe('postgres');
    expect(new URL(environment.REDIS_URL ?? '').hostname).toBe('redis');
    expect(Object.keys(service.depends_on ?? {}).sort()).toEqual(['migrate', 'redis']);
    for (const needed of Object.keys(service.depends_on ?? {})) expect(services[needed], `${name} depends on ${needed}`).toBeDefined();
  });

  it('migrates once, after PostgreSQL is healthy', () => {
    expect(services.migrate?.command).toEqual(['migrate']);
    expect(services.migrate?.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
  });

  it('gives both instances the same database, Redis and fingerprint keys', () => {
    const [first, second] = instances.map(([, service]) => service.environment ?? {});
    for (const variable of ['DATABASE_URL', 'REDIS_URL', 'FINGERPRINT_KEYS']) {
      expect(first?.[variable], variable).toBeDefined();
      expect(second?.[variable], variable).toBe(first?.[variable]);
    }
  });

  it('uses the database, user and password PostgreSQL is started with', () => {
    const url = new URL(services['email-trust-1']?.environment?.DATABASE_URL ?? '');
    const postgres = services.postgres?.environment ?? {};
    expect(url.username).toBe(postgres.POSTGRES_USER);
    expect(decodeURIComponent(url.password)).toBe(postgres.POSTGRES_PASSWORD);
    expect(url.pathname).toBe(`/${postgres.POSTGRES_DB}`);
  });
});
