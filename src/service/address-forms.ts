// The forms an address is stored under in events (email_lower, base_email), worked out exactly as verify
// works them out (the normalize plugin, through a policy's run), offline and without history: what an
// operator's `events list --email ADDR` looks the address up by, and what a label on the address counts under.
import { noHistory } from '../engine/no-history.js';
import { OFFLINE } from '../network/offline.js';
import type { CompiledPolicy } from '../policy/compile.js';
import { evaluate } from '../policy/evaluate.js';

export interface StoredForms {
  /** The address lower-cased with Unicode rules. */
  lower: string;
  /** Its base (no plus tag, no dots on gmail.com); the lower-cased address when it is not a valid address. */
  base: string;
  /** Its domain as events store it (the `domain` fact); null when it has none. */
  domain: string | null;
}

export async function storedForms(policy: CompiledPolicy, email: string): Promise<StoredForms> {
  const input = { email, ipv4: null, ipv6: null, device: null, softCheck: false, projectId: '' };
  const evaluation = await evaluate(policy, input, { velocity: noHistory, network: OFFLINE, now: Date.now }, { timed: false });
  const [lower, base, domain] = await evaluation.facts(['email_lower', 'base_email', 'domain']);
  const emailLower = typeof lower === 'string' ? lower : email.toLowerCase();
  return { lower: emailLower, base: typeof base === 'string' ? base : emailLower, domain: typeof domain === 'string' ? domain : null };
}
