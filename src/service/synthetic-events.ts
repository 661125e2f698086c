// Synthetic history for load tests (`email-trust events generate`, the bench). Every event goes through
// the store's own write path (Events.record: the group commit that also maintains the velocity counters),
// so the rows and counters are exactly those a real verify writes.
import type { Events, NewEvent } from '../store/events.js';

/** Events handed to the store before waiting for their commits: bounds memory, keeps commits full. */
const IN_FLIGHT = 20_000;

export interface GenerateSpec {
  projectId: string;
  count: number;
  ipv4: string | null;
  ipv6: string | null;
  device: string | null;
  /** The events are spread evenly over this many minutes before `now`, oldest first. */
  spreadMinutes: number;
  now: number;
}

/** The i-th synthetic event: user000123@example.com, the i-th address, each one distinct. */
export function syntheticEvent(spec: GenerateSpec, i: number): NewEvent {
  const email = `user${String(i).padStart(6, '0')}@example.com`;
  const spanMs = spec.spreadMinutes * 60_000;
  return {
    projectId: spec.projectId,
    endpoint: 'verify',
    email,
    emailLower: email,
    baseEmail: email,
    domain: 'example.com',
    ipv4: spec.ipv4,
    ipv6: spec.ipv6,
    device: spec.device,
    action: 'allow',
    createdAt: spec.now - spanMs + (spec.count > 1 ? Math.floor((spanMs * i) / (spec.count - 1)) : spanMs),
  };
}

/** Writes `spec.count` events; `onProgress` hears how many are committed after each slice. */
export async function generateEvents(events: Pick<Events, 'record'>, spec: GenerateSpec, onProgress: (done: number) => void = () => {}): Promise<void> {
  for (let done = 0; done < spec.count; ) {
    const end = Math.min(spec.count, done + IN_FLIGHT);
    const writes: Promise<void>[] = [];
    for (let i = done; i < end; i += 1) writes.push(events.record(syntheticEvent(spec, i)));
    await Promise.all(writes);
    done = end;
    onProgress(done);
  }
}
