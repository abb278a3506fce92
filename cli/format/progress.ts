import type { Writable } from 'node:stream';
import { SingleBar } from 'cli-progress';

/** A progress display that is a no-op where it would only add noise. */
export interface Progress {
  update(done: number, total: number): void;
  stop(): void;
}

/**
 * A progress bar on `stream` (stderr), only when it is a terminal: piped or captured output
 * stays clean, and stdout (maybe `--json`) never sees it. `unit` names what `done` counts.
 */
export function startProgress(
  stream: Writable,
  label: string,
  unit = 'simulated minutes',
): Progress {
  if ((stream as Writable & { isTTY?: boolean }).isTTY !== true) {
    return { update: () => {}, stop: () => {} };
  }
  const bar = new SingleBar({
    stream,
    format: `${label} |{bar}| {percentage}% · {value}/{total} ${unit}`,
    barsize: 24,
    hideCursor: true,
    clearOnComplete: true,
    noTTYOutput: false,
  });
  let started = false;
  return {
    update(done, total) {
      if (!started) {
        bar.start(total, done);
        started = true;
      } else {
        bar.setTotal(total);
        bar.update(done);
      }
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
