// How answers name a policy's free rule: in `warnings` when it names no code, and in `steps`.

/** `rule_` and the rule's name with hyphens as underscores: a valid code and step identifier. */
export function ruleId(name: string): string {
  return `rule_${name.replaceAll('-', '_')}`;
}
