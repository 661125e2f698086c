// The popular mailbox domains typo detection corrects towards: read once from the repository's data folder.
import { readDataFile } from '../plugin-data.js';

/** One lower-case ASCII domain per line, in the file's order (most used first); `#` lines are comments. */
export function readPopularDomains(): string[] {
  const text = readDataFile('typo', 'popular-domains.txt');
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}
