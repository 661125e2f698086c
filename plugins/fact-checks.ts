// Checks that fire when one fact has one value: most plugins' checks are of this shape. The checks of the
// address's form (structure, domain-form, local-part, tld, idn, subdomain) count as the address_format type.
import type { CheckSpec } from '../src/engine/plugin.js';

/** A check of `checkedType` that fires when `fact` equals `value` (true unless another is given). */
export function factCheck(checkedType: string, fact: string, code: string, description: string, value: boolean | number = true): CheckSpec {
  return { description, when: { fact, operator: 'equal', value }, code, checkedType };
}

/** A check of type address_format that fires when `fact` equals `value` (true unless another is given). */
export function formatCheck(fact: string, code: string, description: string, value: boolean | number = true): CheckSpec {
  return factCheck('address_format', fact, code, description, value);
}
