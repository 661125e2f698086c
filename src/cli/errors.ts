// What a command reports to the person at the terminal; main() gives each kind its exit code.

/** What was asked cannot be done as asked (an unknown name, a missing file, a taken name): exit 2. */
export class UsageError extends Error {}

/** Policy tests ran and at least one failed: exit 4. */
export class TestsFailedError extends Error {}

/** A long run stopped by Ctrl-C (or SIGTERM) after writing what it had done: exit 130, as a shell reports SIGINT. */
export class InterruptedError extends Error {}
