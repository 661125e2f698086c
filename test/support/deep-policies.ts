// The two deep policies of issue 46: one 100,000 levels deep (brackets), and a valid one 200 levels deep (a
// rule of 200 nested `not`s) that `policy check` refused and `project update` stored; every way a policy
// arrives must refuse both, naming the depth limit.
export const DEEP_POLICIES: [name: string, text: string][] = [
  ['100,000 levels deep', `version: "1.0"\ndescription: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`],
  [
    '200 levels deep',
    `version: "1.0"\nrules:\n  - name: r\n    action: warn\n    conditions: ${'{ not: '.repeat(200)}{ fact: has_numeric, operator: equal, value: true }${' }'.repeat(200)}\n`,
  ],
];

/** What each is refused with. */
export const DEPTH_REFUSAL = 'nesting deeper than 64 levels';
