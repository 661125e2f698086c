// The checks of the address's form (structure, domain-form, local-part, tld, idn, subdomain): each fires
// when one of its plugin's facts has one value, and counts as the address_format checked type.
import type { CheckSpec } from '../src/engine/plugin.js';

/** A check of type address_format that fires when `fact` equals `value` (true unless another is given). */
export function formatCheck(fact: string, code: string, description: string, value: boolean | number = true): CheckSpec {
  return { description, when: { fact, operator: 'equal', value }, code, checkedType: 'address_format' };
}
