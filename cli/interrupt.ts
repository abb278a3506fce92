/**
 * Ctrl-C (and SIGTERM) for the commands that draw on the terminal: put the terminal back, then
 * exit 130 (143).
 *
 * A live display (the progress bar of `simulate` and `backfill`) hides the cursor and turns
 * line wrap off while it draws. A process that dies of SIGINT leaves both so: the shell's
 * prompt comes back without a cursor and long lines are cut off at the edge. Every command
 * that changes the terminal goes through {@link exitOnInterrupt}, so no command forgets it.
 */
import type { Writable } from 'node:stream';

/** Exit code of a command stopped by Ctrl-C: 128 + SIGINT (2), as a shell reports it. */
export const INTERRUPTED_EXIT_CODE = 130;

/** Exit codes after a stop signal: 128 + its number. */
export const SIGNAL_EXIT_CODES = { SIGINT: INTERRUPTED_EXIT_CODE, SIGTERM: 143 } as const;

/** A signal that stops a long-running command. */
export type StopSignal = keyof typeof SIGNAL_EXIT_CODES;

/** Shows the cursor (DECTCEM, `ESC [ ? 25 h`). */
export const SHOW_CURSOR = '\u001b[?25h';

/** Wraps lines at the right margin again (DECAWM, `ESC [ ? 7 h`). */
export const LINE_WRAP_ON = '\u001b[?7h';

/** What a process that exits for a signal may listen on: `process`, or a stand-in in tests. */
export interface SignalSource {
  on(signal: StopSignal, listener: () => void): unknown;
  off(signal: StopSignal, listener: () => void): unknown;
}

/** Options of {@link exitOnInterrupt}. */
export interface InterruptOptions {
  /** The stream a display draws on (stderr): restored when it is a terminal. */
  readonly stream: Writable;
  /** Takes the display down first (`progress.stop`), so it draws nothing after the restore. */
  readonly cleanup?: () => void;
  /**
   * Makes the first Ctrl-C a request: `interrupted()` turns true and the command stops at its
   * next safe point (`backfill` finishes the run in flight); a second Ctrl-C exits at once.
   * @default false (the first Ctrl-C exits)
   */
  readonly stopAtSafePoint?: boolean;
  /** @default process */
  readonly signals?: SignalSource;
  /** @default process.exit */
  readonly exit?: (code: number) => void;
}

/** An installed Ctrl-C handler. */
export interface InterruptGuard {
  /** Whether Ctrl-C was pressed (with `stopAtSafePoint`: the command should stop). */
  interrupted(): boolean;
  /** Removes the handler: Ctrl-C does what it did before. */
  release(): void;
}

/**
 * Puts the terminal back: cursor shown, line wrap on. Nothing is written to a stream that is
 * not a terminal (a pipe or a file never saw the display).
 *
 * @example
 * restoreTerminal(process.stderr); // writes '\u001b[?25h\u001b[?7h' on a terminal
 */
export function restoreTerminal(stream: Writable): void {
  if ((stream as Writable & { isTTY?: boolean }).isTTY !== true) return;
  stream.write(`${SHOW_CURSOR}${LINE_WRAP_ON}`);
}

/**
 * Until released, Ctrl-C takes the display down, restores the terminal and exits with 130
 * (with `stopAtSafePoint`: the second Ctrl-C does); SIGTERM (`kill`, a CI job's timeout) does
 * the same at once and exits with 143.
 *
 * The exit is immediate: what a command holds is in memory (`simulate`) or was made safe by
 * the first Ctrl-C (`backfill`), so there is nothing to flush.
 *
 * @example
 * const progress = startProgress(process.stderr, 'simulating');
 * const guard = exitOnInterrupt({ stream: process.stderr, cleanup: progress.stop });
 * try { await work(); } finally { guard.release(); progress.stop(); }
 */
export function exitOnInterrupt(options: InterruptOptions): InterruptGuard {
  const signals = options.signals ?? process;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let pressed = 0;
  const stop = (signal: StopSignal) => {
    options.cleanup?.();
    restoreTerminal(options.stream);
    exit(SIGNAL_EXIT_CODES[signal]);
  };
  const onSigint = () => {
    pressed++;
    if (pressed === 1 && options.stopAtSafePoint === true) return;
    stop('SIGINT');
  };
  const onSigterm = () => stop('SIGTERM');
  signals.on('SIGINT', onSigint);
  signals.on('SIGTERM', onSigterm);
  return {
    interrupted: () => pressed > 0,
    release: () => {
      signals.off('SIGINT', onSigint);
      signals.off('SIGTERM', onSigterm);
    },
  };
}

/**
 * Resolves with the first of SIGINT or SIGTERM: for a command that runs until it is stopped
 * (`sandbox`) and then shuts down in order, exiting with {@link SIGNAL_EXIT_CODES}.
 *
 * @example
 * const signal = await nextStopSignal(); // 'SIGINT' after Ctrl-C
 * process.exitCode = SIGNAL_EXIT_CODES[signal]; //=> 130
 */
export function nextStopSignal(): Promise<StopSignal> {
  return new Promise((resolve) => {
    const on = (signal: StopSignal) => () => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      resolve(signal);
    };
    const onInt = on('SIGINT');
    const onTerm = on('SIGTERM');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
  });
}
