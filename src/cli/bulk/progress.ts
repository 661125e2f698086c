// Progress of a bulk run on stderr: a bar with the rate and the time left, redrawn in place, on a
// terminal; a plain line every few seconds otherwise (a log, a CI job).
import type { WriteStream } from 'node:tty';

const BAR_WIDTH = 24;
const TTY_EVERY_MS = 100;
const PLAIN_EVERY_MS = 5000;

export interface ProgressOptions {
  /** Records in the whole list (an estimate from its line count), null when unknown. */
  total: number | null;
  /** Records already done by an earlier run. */
  done: number;
  stream?: NodeJS.WriteStream | WriteStream;
  now?: () => number;
}

export class Progress {
  private readonly started: number;
  private readonly startDone: number;
  private done: number;
  private shown = 0;
  private readonly stream: NodeJS.WriteStream | WriteStream;
  private readonly tty: boolean;
  private readonly now: () => number;

  constructor(private readonly options: ProgressOptions) {
    this.now = options.now ?? Date.now;
    this.stream = options.stream ?? process.stderr;
    this.tty = this.stream.isTTY === true;
    this.started = this.now();
    this.shown = this.started;
    this.done = options.done;
    this.startDone = options.done;
  }

  /** `n` more records done (a batch at once). */
  tick(n = 1): void {
    this.done += n;
    const at = this.now();
    if (at - this.shown >= (this.tty ? TTY_EVERY_MS : PLAIN_EVERY_MS)) {
      this.shown = at;
      this.draw(at);
    }
  }

  /** Clears the bar (on a terminal) so that what follows starts on a clean line. */
  end(): void {
    if (this.tty) this.stream.write('\r\u001b[K');
  }

  /** Addresses per second in this run. */
  rate(at = this.now()): number {
    const seconds = (at - this.started) / 1000;
    return seconds > 0 ? (this.done - this.startDone) / seconds : 0;
  }

  private draw(at: number): void {
    const { total } = this.options;
    const rate = this.rate(at);
    const count = total ? `${fmt(this.done)}/${fmt(total)}` : fmt(this.done);
    const left = total && rate > 0 ? ` ETA ${duration(Math.max(0, total - this.done) / rate)}` : '';
    const speed = `${fmt(Math.round(rate))}/s`;
    if (!this.tty) {
      this.stream.write(`progress: ${count} ${speed}${left}\n`);
      return;
    }
    const share = total ? Math.min(1, this.done / total) : 0;
    const filled = Math.round(share * BAR_WIDTH);
    const bar = total ? `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${Math.floor(share * 100)}% ` : '';
    this.stream.write(`\r\u001b[K${bar}${count} ${speed}${left}`);
  }
}

/**
 * A number with thousands separators, as en-US writes it (12,345). Integers without Intl: the first
 * toLocaleString of a process loads ICU's data, which `serve` paid at start for one help text (docs/decisions/0048).
 */
export function fmt(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString('en-US');
  const digits = String(Math.abs(n)).replace(/\B(?=(\d{3})+$)/g, ',');
  return n < 0 ? `-${digits}` : digits;
}

export function duration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}
