import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  exitOnInterrupt,
  INTERRUPTED_EXIT_CODE,
  LINE_WRAP_ON,
  restoreTerminal,
  SHOW_CURSOR,
} from '../../../cli/interrupt.ts';

/** A stream, a terminal or not, that logs what is written to it. */
function stream(isTTY: boolean, log: string[] = []): Writable & { written: string[] } {
  const written: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      written.push(String(chunk));
      log.push(`wrote ${JSON.stringify(String(chunk))}`);
      done();
    },
  });
  return Object.assign(sink, { isTTY, written });
}

/** A guard on a stand-in process: what happened, in order. */
function guarded(options: { isTTY: boolean; stopAtSafePoint?: boolean }) {
  const signals = new EventEmitter();
  const events: string[] = [];
  const terminal = stream(options.isTTY, events);
  const guard = exitOnInterrupt({
    stream: terminal,
    signals,
    cleanup: () => events.push('cleanup'),
    exit: (code) => events.push(`exit ${code}`),
    ...(options.stopAtSafePoint ? { stopAtSafePoint: true } : {}),
  });
  const press = () => signals.emit('SIGINT');
  return { guard, signals, events, press };
}

describe('restoreTerminal', () => {
  it('shows the cursor and turns line wrap on, on a terminal', () => {
    const terminal = stream(true);
    restoreTerminal(terminal);
    expect(terminal.written).toEqual([`${SHOW_CURSOR}${LINE_WRAP_ON}`]);
  });

  it('writes nothing to a stream that is not a terminal', () => {
    const piped = stream(false);
    restoreTerminal(piped);
    expect(piped.written).toEqual([]);
  });
});

describe('exitOnInterrupt', () => {
  it('on Ctrl-C takes the display down, then restores the terminal, then exits with 130', () => {
    const { events, press } = guarded({ isTTY: true });
    press();
    expect(events).toEqual([
      'cleanup',
      `wrote ${JSON.stringify(`${SHOW_CURSOR}${LINE_WRAP_ON}`)}`,
      `exit ${INTERRUPTED_EXIT_CODE}`,
    ]);
    expect(INTERRUPTED_EXIT_CODE).toBe(130);
  });

  it('exits with 130 without writing escapes when stderr is not a terminal', () => {
    const { events, press } = guarded({ isTTY: false });
    press();
    expect(events).toEqual(['cleanup', 'exit 130']);
  });

  it('with stopAtSafePoint, only marks the first Ctrl-C and exits on the second', () => {
    const { guard, events, press } = guarded({ isTTY: true, stopAtSafePoint: true });
    expect(guard.interrupted()).toBe(false);
    press();
    expect(guard.interrupted()).toBe(true);
    expect(events).toEqual([]);
    press();
    expect(events).toEqual(['cleanup', expect.stringContaining('wrote'), 'exit 130']);
  });

  it('on SIGTERM takes the display down, restores the terminal and exits with 143 at once, even with stopAtSafePoint', () => {
    const { signals, events } = guarded({ isTTY: true, stopAtSafePoint: true });
    signals.emit('SIGTERM');
    expect(events).toEqual(['cleanup', expect.stringContaining('wrote'), 'exit 143']);
  });

  it('once released, leaves Ctrl-C and SIGTERM alone', () => {
    const { guard, signals, events, press } = guarded({ isTTY: true });
    guard.release();
    expect(signals.listenerCount('SIGINT')).toBe(0);
    expect(signals.listenerCount('SIGTERM')).toBe(0);
    press();
    expect(events).toEqual([]);
  });
});
