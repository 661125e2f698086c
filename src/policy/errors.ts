// Problems found in a policy, each with where it is: file, line, column and path.

export interface PolicyProblem {
  file: string;
  line: number;
  column: number;
  /** JSON path inside the document, e.g. /checks/local_plus/mode. */
  path: string;
  message: string;
}

export class PolicyError extends Error {
  constructor(readonly problems: PolicyProblem[]) {
    super(problems.map(formatProblem).join('\n'));
    this.name = 'PolicyError';
  }
}

/** A policy past one of the limits of limits.ts: refused before the rest of it is checked. */
export class PolicyLimitError extends PolicyError {
  constructor(readonly problem: PolicyProblem) {
    super([problem]);
    this.name = 'PolicyLimitError';
  }

  /** The refusal in a sentence, e.g. `policy: nesting deeper than 64 levels (line 3)`. */
  describe(label = 'policy'): string {
    const where = [this.problem.path ? `at ${this.problem.path}` : '', this.problem.line > 0 ? `line ${this.problem.line}` : ''].filter(Boolean);
    return `${label}: ${this.problem.message}${where.length > 0 ? ` (${where.join(', ')})` : ''}`;
  }
}

export function formatProblem(p: PolicyProblem): string {
  const where = p.line > 0 ? `${p.file}:${p.line}:${p.column}` : p.file;
  return `${where}: ${p.path || '/'}: ${p.message}`;
}

export function sortProblems(problems: PolicyProblem[]): PolicyProblem[] {
  return [...problems].sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column || a.path.localeCompare(b.path));
}
