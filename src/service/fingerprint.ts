// Device fingerprints: an AES-256-GCM sealed token `fp1.<key id>.<base64url>` holding the project,
// the caller's addresses, a device hash, the time it was issued, the browser's time zone and the traits
// seen of it (device-traits.ts). Only this service can read it; a token of another project, an expired,
// tampered, non-canonical or unknown-key token is refused.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import createError from 'http-errors';
import type { FingerprintInput } from '../engine/plugin.js';
import type { ClientAddress } from './client-ip.js';
import { deviceTraits } from './device-traits.js';

/** What the browser may tell about itself (schemas/fingerprint-request.schema.json bounds each field). */
export interface ClientSignals {
  browser_id?: string;
  timezone?: string;
  languages?: string[];
  platform?: string;
  screen?: string;
  hardware_concurrency?: number;
  device_memory?: number;
  touch_points?: number;
  /** navigator.webdriver: true in a browser driven by WebDriver or the DevTools protocol with automation on. */
  webdriver?: boolean;
}

export interface FingerprintRequest {
  device?: ClientSignals;
}

export interface DeviceSignals {
  address: ClientAddress;
  userAgent: string;
  acceptLanguage: string;
  /** Sent by public/fingerprint.js; without them the device is only its two headers. */
  client?: ClientSignals;
}

export interface FingerprintPayload {
  project: string;
  ip4: string | null;
  ip6: string | null;
  device: string;
  /** Unix seconds. */
  iat: number;
  /** The script's time zone; absent in tokens sealed before it was kept, and when the browser sent none. */
  timezone?: string;
  /** device-traits.ts's traits; absent in older tokens (then none are known). */
  automation?: string[];
  languages?: string[];
}

export interface SealingKey {
  id: string;
  key: Buffer;
}

export class FingerprintError extends Error {}

const VERSION = 'fp1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class FingerprintSealer {
  private readonly byId: Map<string, Buffer>;

  /** The first key seals; every key opens (rotation by key id). */
  constructor(
    private readonly keys: readonly SealingKey[],
    private readonly ttlSeconds: number,
  ) {
    if (keys.length === 0) throw new Error('a fingerprint sealer needs at least one key');
    this.byId = new Map(keys.map((k) => [k.id, k.key]));
  }

  seal(projectId: string, signals: DeviceSignals, nowMs: number): string {
    const payload: FingerprintPayload = {
      project: projectId,
      ip4: signals.address.ipv4_address,
      ip6: signals.address.ipv6_address,
      device: deviceHash(signals),
      iat: Math.floor(nowMs / 1000),
      ...(signals.client?.timezone ? { timezone: signals.client.timezone } : {}),
      ...deviceTraits(signals.userAgent, signals.acceptLanguage, signals.client),
    };
    const { id, key } = this.keys[0] as SealingKey;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(`${VERSION}.${id}`));
    const sealed = Buffer.concat([iv, cipher.update(JSON.stringify(payload), 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${VERSION}.${id}.${sealed.toString('base64url')}`;
  }

  /** Opens a token for a project; throws FingerprintError saying why it is refused. */
  open(token: string, projectId: string, nowMs: number): FingerprintPayload {
    const [version, id, body] = token.split('.');
    if (version !== VERSION || !id || !body || token.split('.').length !== 3)
      throw new FingerprintError('fingerprint is not a token issued by POST /v1/fingerprint');
    const key = this.byId.get(id);
    if (!key) throw new FingerprintError('fingerprint was sealed with a key this service no longer has; request a new one');
    const sealed = Buffer.from(body, 'base64url');
    // Node's decoder is lenient (padding, '+' and '/', characters outside the alphabet, a last
    // character's unused low bits): only the one canonical spelling of the sealed bytes is a token, so
    // two different strings never open to the same token.
    if (sealed.toString('base64url') !== body) throw new FingerprintError('fingerprint is not canonical base64url (no padding, no other characters)');
    if (sealed.length <= IV_BYTES + TAG_BYTES) throw new FingerprintError('fingerprint is truncated');
    let payload: FingerprintPayload;
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(`${VERSION}.${id}`));
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      const plain = Buffer.concat([decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)), decipher.final()]);
      payload = JSON.parse(plain.toString('utf8')) as FingerprintPayload;
    } catch {
      throw new FingerprintError('fingerprint has been altered or is not valid');
    }
    if (payload.project !== projectId) throw new FingerprintError('fingerprint was issued for another project');
    if (Math.floor(nowMs / 1000) - payload.iat > this.ttlSeconds) throw new FingerprintError('fingerprint has expired; request a new one');
    return payload;
  }
}

/** The client signals in a fixed order, so the same browser hashes the same whatever order it sent them in. */
const CLIENT_SIGNALS = ['browser_id', 'timezone', 'languages', 'platform', 'screen', 'hardware_concurrency', 'device_memory', 'touch_points'] as const;

function deviceHash(signals: DeviceSignals): string {
  const hash = createHash('sha256').update(`${signals.userAgent}\n${signals.acceptLanguage}`);
  for (const name of CLIENT_SIGNALS) {
    const value = signals.client?.[name];
    if (value !== undefined) hash.update(`\n${name}=${JSON.stringify(value)}`);
  }
  return hash.digest('base64url').slice(0, 22);
}

/** A request's opened token: its device hash (velocity by device) and what the device plugin reads. */
export interface OpenedFingerprint {
  device: string;
  input: FingerprintInput;
}

/**
 * The `fingerprint` field of a request (verify, intelligence) opened for the project: null when absent;
 * a 400 naming the field when the token is not one of this project's or has expired.
 */
export function openFingerprintField(sealer: FingerprintSealer, token: string | undefined, projectId: string, nowMs: number): OpenedFingerprint | null {
  if (!token) return null;
  let payload: FingerprintPayload;
  try {
    payload = sealer.open(token, projectId, nowMs);
  } catch (error) {
    if (error instanceof FingerprintError) throw createError(400, `fingerprint: ${error.message}`);
    throw error;
  }
  return {
    device: payload.device,
    input: {
      // The token is canonical (open() refuses any other spelling), so one token has one id.
      token: createHash('sha256').update(token).digest('base64url').slice(0, 22),
      issuedAt: payload.iat * 1000,
      ipv4: payload.ip4,
      ipv6: payload.ip6,
      timezone: typeof payload.timezone === 'string' ? payload.timezone : null,
      automation: stringsOf(payload.automation),
      languages: stringsOf(payload.languages),
    },
  };
}

const stringsOf = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
