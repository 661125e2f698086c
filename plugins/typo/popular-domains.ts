// The lists typo detection corrects towards, read once from the plugin's data folder.
import { readDataFile } from '../plugin-data.js';

/** One lower-case ASCII name per line, in the file's order (most used first); `#` lines are comments. */
function readNames(file: string): string[] {
  return readDataFile('typo', file)
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/** The popular mailbox domains (gmail.com, hotmail.co.uk, …). */
export function readPopularDomains(): string[] {
  return readNames('popular-domains.txt');
}

/** The common public suffixes a mistyped top-level domain is corrected to (com, net, org, co.uk, …). */
export function readCommonSuffixes(): string[] {
  return readNames('common-suffixes.txt');
}

/** Real mail domains one keyboard slip from a short popular name (dr.com, love.com): never corrected. */
export function readKnownDomains(): string[] {
  return readNames('known-domains.txt');
}
