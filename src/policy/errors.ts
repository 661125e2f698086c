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

export function formatProblem(p: PolicyProblem): string {
  const where = p.line > 0 ? `${p.file}:${p.line}:${p.column}` : p.file;
  return `${where}: ${p.path || '/'}: ${p.message}`;
}

export function sortProblems(problems: PolicyProblem[]): PolicyProblem[] {
  return [...problems].sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column || a.path.localeCompare(b.path));
}
