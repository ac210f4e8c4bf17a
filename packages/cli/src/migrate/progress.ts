import { visibleText } from "../format/visible-text.js";

/** Where progress goes: stderr, so stdout stays clean for `--json`. */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface Progress {
  update(done: number, total: number, note?: string): void;
  finish(): void;
}

const REDRAW_EVERY_MS = 100;
const STEPS = 10;

/**
 * A progress bar redrawn in place on a terminal; on anything else (a log file, CI, a parent process)
 * one plain line at every tenth of the way, so the output stays readable and parseable.
 */
export function createProgress(stream: ProgressStream, label: string): Progress {
  return stream.isTTY ? barProgress(stream, label) : lineProgress(stream, label);
}

function barProgress(stream: ProgressStream, label: string): Progress {
  const started = Date.now();
  let drawnAt = 0;
  let last = "";
  const draw = (done: number, total: number, note = "") => {
    const fraction = total === 0 ? 1 : done / total;
    const width = Math.max(10, Math.min(40, (stream.columns ?? 80) - label.length - 50));
    const filled = Math.round(fraction * width);
    const bar = `${"█".repeat(filled)}${"░".repeat(width - filled)}`;
    const rate = done / Math.max((Date.now() - started) / 1000, 0.001);
    const left = rate > 0 && done < total ? ` · ${Math.ceil((total - done) / rate)}s left` : "";
    last = `${label} ${bar} ${done}/${total} ${Math.floor(fraction * 100)}% · ${rate.toFixed(0)}/s${left}${note ? ` · ${note}` : ""}`;
    // The label and note are shown, never obeyed: the only escape written is this one, clearing the line's rest.
    stream.write(`\r${visibleText(last)}\u001b[K`);
  };
  return {
    update(done, total, note) {
      const now = Date.now();
      if (now - drawnAt < REDRAW_EVERY_MS && done < total) return;
      drawnAt = now;
      draw(done, total, note);
    },
    finish() {
      if (last) stream.write("\n");
    },
  };
}

function lineProgress(stream: ProgressStream, label: string): Progress {
  const started = Date.now();
  // Nothing to say before the first tenth is done.
  let step = 0;
  return {
    update(done, total, note) {
      const reached = total === 0 ? STEPS : Math.floor((done / total) * STEPS);
      if (reached <= step) return;
      step = reached;
      const rate = done / Math.max((Date.now() - started) / 1000, 0.001);
      const percent = total === 0 ? 100 : Math.floor((done / total) * 100);
      stream.write(
        `${visibleText(`${label}: ${done}/${total} threads (${percent}%), ${rate.toFixed(0)} threads/s${note ? `, ${note}` : ""}`)}\n`,
      );
    },
    finish() {},
  };
}
