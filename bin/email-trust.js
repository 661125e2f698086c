#!/usr/bin/env -S node --max-semi-space-size=32
// Entry point of the `email-trust` command: runs the compiled CLI (built by `npm ci` / `npm run build`).
// Run it as a program (`npx email-trust`, `npm start`, the container's entrypoint) so that node gets the flags
// above: a young generation of 2 × 32 MB instead of 2 × 16. A verify allocates about 200 KB; with the default
// size the requests in flight at each scavenge were promoted, the old generation grew to 130–140 MB under
// load and the process to 285–296 MB resident; with this one 47 MB and 234–237 MB, and verify served 6–12 %
// more requests (bench/README.md, sixth pass). `node bin/email-trust.js` works too, without the flags.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('email-trust is not built yet: run `npm run build` (or `npm ci`, which builds) in the package folder');
  process.exit(1);
}
const { main } = await import(entry.href);
const code = await main(process.argv.slice(2));
if (code !== 0) process.exitCode = code;
