// The environment variables the configuration reads, found by running loadConfig over an environment that
// notes each name it is asked for: `serve --help` lists them from the code that reads them, so the list
// cannot miss one. Their meanings and defaults are docs/configuration.md's table (test/cli/help.test.ts
// checks that it names every one).
import { loadConfig } from '../config.js';

/** Where each variable's meaning and default are written. */
export const CONFIGURATION_TABLE = 'docs/configuration.md';

/** Every variable loadConfig reads, in the order it reads them. */
export function configVariables(): string[] {
  const read = new Set<string>();
  // REDIS_URL set: Redis's other settings are read only then.
  const given: Record<string, string> = { REDIS_URL: 'redis://127.0.0.1:6379' };
  const env = new Proxy(given, {
    get(target, name) {
      if (typeof name === 'string') read.add(name);
      return typeof name === 'string' ? target[name] : undefined;
    },
  });
  loadConfig(env);
  return [...read];
}

/** The help text's list: the variables, wrapped to `width` columns, and where to read about them. */
export function configHelp(width = 80): string {
  const lines: string[] = [];
  let line = ' ';
  for (const name of configVariables()) {
    if (line.length + name.length + 1 > width) {
      lines.push(line);
      line = ' ';
    }
    line += ` ${name}`;
  }
  lines.push(line);
  return `\nEnvironment variables (each one's meaning and default:\n  ${CONFIGURATION_TABLE}):\n${lines.join('\n')}\n`;
}
