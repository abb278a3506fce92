import { describe, expect, it, vi } from 'vitest';
import { InvalidArgumentError } from '../../../../functions/schedule/index.ts';
import { NagFindingsError } from '../../../../infra/app/offline-synth.ts';
import { CoveringError, InvalidStackNameError } from '../../../../infra/app/zonecron-app.ts';
import { ConfigError } from '../../../../infra/config/config-error.ts';
import { DurationError } from '../../../../infra/config/duration.ts';
import { NagAcknowledgementError } from '../../../../infra/constructs/nag.ts';
import { InfraError, isInfraError } from '../../../../infra/errors/infra-error.ts';
import { TargetGrantsTooLargeError } from '../../../../infra/targets/target-grants.ts';

describe('isInfraError', () => {
  it.each([
    ['ConfigError', new ConfigError([])],
    ['DurationError', new DurationError('1 month', 'calendar-unit', 'x')],
    ['TargetGrantsTooLargeError', new TargetGrantsTooLargeError(12)],
    ['NagFindingsError', new NagFindingsError(['AwsSolutions-SQS3'])],
    ['CoveringError', new CoveringError('daily', new Error('x'))],
    ['InvalidStackNameError', new InvalidStackNameError('1x', 'allowed: a letter first')],
  ])('is true for a %s, which keeps its name', (name, error) => {
    expect(isInfraError(error)).toBe(true);
    expect(error).toBeInstanceOf(InfraError);
    expect(error.name).toBe(name);
  });

  it.each([
    ['an Error', new Error('x')],
    ["an engine's error", new InvalidArgumentError('x', 'count', 0)],
    ['a NagAcknowledgementError (a mistake in the code)', new NagAcknowledgementError('x', 'id')],
    ["a plain object named 'ConfigError'", { name: 'ConfigError', message: 'x', issues: [] }],
    ['null', null],
  ])('is false for %s', (_, value) => {
    expect(isInfraError(value)).toBe(false);
  });

  it('recognises errors from a second loaded copy of the app', async () => {
    const first = new DurationError('1 month', 'calendar-unit', 'x');
    vi.resetModules();
    const copy = (await import(
      '../../../../infra/config/duration.ts'
    )) as typeof import('../../../../infra/config/duration.ts');
    const copyErrors = (await import(
      '../../../../infra/errors/infra-error.ts'
    )) as typeof import('../../../../infra/errors/infra-error.ts');
    const second = new copy.DurationError('1 month', 'calendar-unit', 'x');
    expect(second).not.toBeInstanceOf(InfraError);
    expect(isInfraError(second)).toBe(true);
    expect(copyErrors.isInfraError(first)).toBe(true);
  });
});
