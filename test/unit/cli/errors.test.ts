import { describe, expect, it, vi } from 'vitest';
import { BackfillRangeError } from '../../../cli/aws/backfill.ts';
import { StackNotFoundError } from '../../../cli/aws/stack-outputs.ts';
import { CliError, describeError, isCliError, usageError } from '../../../cli/errors.ts';
import { UnknownJobError } from '../../../functions/dispatcher/errors.ts';

const RANGE = { from: new Date('2026-03-29T00:00:00Z'), to: new Date('2026-03-28T00:00:00Z') };

describe('isCliError', () => {
  it.each([
    ['CliError', new CliError('x')],
    ['CliError', usageError('x')],
    ['StackNotFoundError', new StackNotFoundError('Zonecron', 'eu-west-1')],
    ['BackfillRangeError', new BackfillRangeError('empty-range', RANGE, 'x')],
  ])('is true for a %s, which keeps its name', (name, error) => {
    expect(isCliError(error)).toBe(true);
    expect(error).toBeInstanceOf(CliError);
    expect(error.name).toBe(name);
  });

  it.each([
    ['an Error', new Error('x')],
    ["the dispatcher's error", new UnknownJobError('nope', ['daily'])],
    ["a plain object named 'CliError'", { name: 'CliError', message: 'x', exitCode: 2 }],
    ['null', null],
  ])('is false for %s', (_, value) => {
    expect(isCliError(value)).toBe(false);
  });

  it('recognises errors from a second loaded copy of the module, as the report does', async () => {
    const first = usageError('x');
    vi.resetModules();
    const copy = (await import(
      '../../../cli/errors.ts'
    )) as typeof import('../../../cli/errors.ts');
    const second = copy.usageError("unknown job 'x'\n  (known: daily)");
    expect(second).not.toBeInstanceOf(CliError);
    expect(isCliError(second)).toBe(true);
    expect(copy.isCliError(first)).toBe(true);
    expect(describeError(second)).toBe("unknown job 'x' (known: daily)");
  });
});
