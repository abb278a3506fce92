import { describe, expect, it, vi } from 'vitest';
import { InvalidJobsBundleError } from '#jobs/jobs-bundle.ts';
import { InvalidEnvironmentError, MissingEnvironmentError } from '#shared/env.ts';
import { DeploymentError, isDeploymentError } from '#shared/errors.ts';
import { InvalidArgumentError } from '../../../functions/schedule/index.ts';

describe('isDeploymentError', () => {
  it.each([
    ['MissingEnvironmentError', new MissingEnvironmentError('LEDGER_TABLE_NAME')],
    ['InvalidEnvironmentError', new InvalidEnvironmentError('RETENTION_DAYS', 'x', 'a number')],
    ['InvalidJobsBundleError', new InvalidJobsBundleError('/var/task/jobs.json', 'not JSON')],
  ])('is true for a %s, which keeps its name', (name, error) => {
    expect(isDeploymentError(error)).toBe(true);
    expect(error).toBeInstanceOf(DeploymentError);
    expect(error.name).toBe(name);
  });

  it.each([
    ['an Error', new Error('x')],
    ["an engine's error", new InvalidArgumentError('x', 'count', 0)],
    ["a plain object named 'DeploymentError'", { name: 'DeploymentError', message: 'x' }],
    ['null', null],
    ["the string 'DeploymentError'", 'DeploymentError'],
  ])('is false for %s', (_, value) => {
    expect(isDeploymentError(value)).toBe(false);
  });

  it('recognises errors from a second loaded copy of the module', async () => {
    const first = new MissingEnvironmentError('LEDGER_TABLE_NAME');
    vi.resetModules();
    const copy = (await import('#shared/env.ts')) as typeof import('#shared/env.ts');
    const copyErrors = (await import('#shared/errors.ts')) as typeof import('#shared/errors.ts');
    const second = new copy.MissingEnvironmentError('LEDGER_TABLE_NAME');
    expect(second).not.toBeInstanceOf(DeploymentError);
    expect(isDeploymentError(second)).toBe(true);
    expect(copyErrors.isDeploymentError(first)).toBe(true);
  });
});
