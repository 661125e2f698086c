// Configuration from environment variables, validated at start: a bad value names its variable.
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { policiesDir as defaultPoliciesDir } from './paths.js';

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  /** Folder of named policies, all compiled at start. */
  policiesDir: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** false: the socket address is the client; true: the leftmost X-Forwarded-For; n: n proxies in front. */
  trustProxy: boolean | number;
  intelligenceForm: 'A' | 'B';
  /** Requests per second; 0 turns the limit off. */
  rateLimits: { verify: number; ip: number; intelligence: number; fingerprint: number };
  /** Sealing keys for fingerprints: key id → 32-byte key. The first one seals; all of them open. */
  fingerprintKeys: { id: string; key: Buffer }[];
  fingerprintTtlSeconds: number;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

export const DEFAULT_DATABASE_URL = 'sqlite:./data/email-trust.sqlite';
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env): Config {
  return {
    port: integer(env, 'PORT', 8080, 0, 65535),
    host: env.HOST?.trim() || '127.0.0.1',
    databaseUrl: databaseUrl(env),
    policiesDir: policiesFolder(env),
    logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    trustProxy: trustProxy(env),
    intelligenceForm: oneOf(env, 'INTELLIGENCE_FORM', ['A', 'B'] as const, 'B'),
    rateLimits: {
      verify: integer(env, 'RATE_LIMIT_VERIFY', 10, 0, 1_000_000),
      ip: integer(env, 'RATE_LIMIT_IP', 10, 0, 1_000_000),
      intelligence: integer(env, 'RATE_LIMIT_INTELLIGENCE', 10, 0, 1_000_000),
      fingerprint: integer(env, 'RATE_LIMIT_FINGERPRINT', 10, 0, 1_000_000),
    },
    fingerprintKeys: fingerprintKeys(env),
    fingerprintTtlSeconds: integer(env, 'FINGERPRINT_TTL_SECONDS', 86_400, 60, 31_536_000),
  };
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `"${raw}" is not a whole number`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `${value} is outside ${min}..${max}`);
  return value;
}

function oneOf<T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!(values as readonly string[]).includes(raw)) throw new ConfigError(name, `"${raw}" is not one of ${values.join(', ')}`);
  return raw as T;
}

function databaseUrl(env: Env): string {
  const raw = env.DATABASE_URL?.trim() || DEFAULT_DATABASE_URL;
  if (!/^(sqlite:.+|postgres(ql)?:\/\/.+)$/.test(raw)) {
    throw new ConfigError('DATABASE_URL', `"${raw}" is not sqlite:<path> or postgres://user@host:port/database`);
  }
  return raw;
}

function policiesFolder(env: Env): string {
  const raw = env.POLICIES_DIR?.trim();
  if (!raw) return defaultPoliciesDir;
  const dir = resolve(raw);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new ConfigError('POLICIES_DIR', `"${raw}" is not a folder`);
  return dir;
}

function trustProxy(env: Env): boolean | number {
  const raw = env.TRUST_PROXY?.trim().toLowerCase();
  if (!raw || raw === 'false' || raw === 'off' || raw === '0') return false;
  if (raw === 'true' || raw === 'on') return true;
  if (/^\d+$/.test(raw) && Number(raw) <= 100) return Number(raw);
  throw new ConfigError('TRUST_PROXY', `"${raw}" is not true, false or a number of proxies (1..100)`);
}

function fingerprintKeys(env: Env): Config['fingerprintKeys'] {
  const raw = env.FINGERPRINT_KEYS?.trim();
  if (!raw) return [];
  return raw.split(',').map((entry) => {
    const [id, secret] = entry.split(':');
    if (!id || !secret || !/^[a-z0-9]{1,16}$/i.test(id)) {
      throw new ConfigError('FINGERPRINT_KEYS', 'expected a comma-separated list of <key id>:<32 bytes in base64>');
    }
    const key = Buffer.from(secret, 'base64');
    if (key.length !== 32) throw new ConfigError('FINGERPRINT_KEYS', `key ${id} is ${key.length} bytes, not 32`);
    return { id, key };
  });
}
