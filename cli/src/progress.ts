/**
 * Progress of long work on standard error. On a terminal, a bar redrawn in place under the
 * lines already written; otherwise (a file, a pipe, CI logs) only whole lines, and a bar's
 * changes are not written at all, so logs stay readable.
 */
export interface Progress {
  /** True on a terminal, where bars are drawn. */
  readonly interactive: boolean;
  /** A line of its own: written above the bar, which is drawn again under it. */
  line(text: string): void;
  /** Shows `done` of `total` (in `unit`: bytes are shown in MiB) with a label; a no-op off a terminal. */
  bar(label: string, done: number, total: number, unit?: 'bytes' | 'fraction'): void;
  /** Removes the bar (the work it measured is over). */
  clear(): void;
}

/** At most this many redraws per second: a fast upload must not spend its time drawing. */
const REDRAW_MS = 100;
const MIB = 1024 * 1024;
const CLEAR_LINE = '\r\x1b[2K';

interface Output {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

function describe(done: number, total: number, unit: 'bytes' | 'fraction'): string {
  if (unit === 'fraction') return '';
  const digits = total >= 100 * MIB ? 0 : 1;
  return ` ${(done / MIB).toFixed(digits)}/${(total / MIB).toFixed(digits)} MiB`;
}

/** `label [#######-------]  47% 1.2/2.5 MiB`, cut to the terminal's width. */
export function renderBar(
  label: string,
  done: number,
  total: number,
  unit: 'bytes' | 'fraction',
  columns: number,
): string {
  const fraction = total > 0 ? Math.min(1, Math.max(0, done / total)) : 0;
  const percent = `${Math.floor(fraction * 100)}%`.padStart(4);
  const suffix = ` ${percent}${describe(done, total, unit)}`;
  const width = Math.max(10, Math.min(40, columns - label.length - suffix.length - 3));
  const filled = Math.round(fraction * width);
  const text = `${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}]${suffix}`;
  return text.length >= columns ? text.slice(0, Math.max(0, columns - 1)) : text;
}

export function createProgress(output: Output): Progress {
  if (!output.isTTY) {
    return {
      interactive: false,
      line: (text) => output.write(`${text}\n`),
      bar: () => undefined,
      clear: () => undefined,
    };
  }
  let shown = '';
  let drawnAt = 0;
  // A terminal that does not know its size (a pty nobody sized) says 0.
  const columns = () => output.columns || 80;
  return {
    interactive: true,
    line(text) {
      output.write(`${shown === '' ? '' : CLEAR_LINE}${text}\n${shown}`);
    },
    bar(label, done, total, unit = 'fraction') {
      const now = Date.now();
      // The end is always drawn; steps in between at most every REDRAW_MS.
      if (done < total && now - drawnAt < REDRAW_MS && shown !== '') return;
      drawnAt = now;
      shown = renderBar(label, done, total, unit, columns());
      output.write(`${CLEAR_LINE}${shown}`);
    },
    clear() {
      if (shown === '') return;
      output.write(CLEAR_LINE);
      shown = '';
    },
  };
}

/** Standard error, where every command's progress goes (standard output carries results only). */
export const progress: Progress = createProgress(process.stderr);
