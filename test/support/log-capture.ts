// A pino logger whose lines a test can read: give it to startService({ compose: { log } }).
//
//   const captured = captureLog();
//   server = await startService({ compose: { log: captured.log } });
//   captured.clear();
//   expect(captured.above('info')).toEqual([]);
import { Writable } from 'node:stream';
import { type Level, type Logger, pino } from 'pino';

export interface LogLine {
  level: number;
  msg?: string;
  [field: string]: unknown;
}

export interface CapturedLog {
  log: Logger;
  lines: LogLine[];
  /** The lines logged at a level above `level` (e.g. above 'info': warn, error, fatal). */
  above(level: Level): LogLine[];
  /** Forgets the lines so far (e.g. the start's warnings). */
  clear(): void;
}

export function captureLog(level: Level = 'debug'): CapturedLog {
  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as LogLine);
      done();
    },
  });
  const log = pino({ level }, sink);
  return {
    log,
    lines,
    above: (threshold) => lines.filter((line) => line.level > (pino.levels.values[threshold] ?? 0)),
    clear: () => {
      lines.length = 0;
    },
  };
}
