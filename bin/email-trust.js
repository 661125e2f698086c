#!/usr/bin/env -S node --v8-pool-size=1
// Entry point of the `email-trust` command: runs the compiled CLI (built by `npm ci` / `npm run build`).
// The shebang gives node SERVE_NODE_FLAGS (src/cli/serve-flags.ts), as `npm start` does: `env -S` splits them.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('email-trust is not built yet: run `npm run build` (or `npm ci`, which builds) in the package folder');
  process.exit(1);
}
// Before the CLI's modules load (their data lists are the first full collections' survivors): see heap-growth.ts.
const { boundHeapGrowth, keepNewObjectsYoung } = await import(new URL('../dist/src/cli/heap-growth.js', import.meta.url).href);
boundHeapGrowth();
keepNewObjectsYoung();
const { main } = await import(entry.href);
const code = await main(process.argv.slice(2));
if (code !== 0) process.exitCode = code;
