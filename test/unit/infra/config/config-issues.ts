/**
 * The loader tests' way to read what a jobs file is refused for.
 *
 * Several test files ask the same question of the loader: which issues does this file have?
 * One answer here, so a file that loads is a failed test everywhere alike.
 */
import {
  type ConfigIssue,
  isConfigError,
  parseJobsConfig,
} from '../../../../infra/config/load-jobs.ts';

/** The issues of the `ConfigError` that `load` throws; fails when it throws none. */
export function thrownIssues(load: () => unknown): ConfigIssue[] {
  try {
    load();
  } catch (error) {
    if (isConfigError(error)) return [...error.issues];
    throw error;
  }
  throw new Error('expected a ConfigError, but the file loaded');
}

/** The issues of the jobs file `text`, named `jobs.yaml`. */
export function issuesOf(text: string): ConfigIssue[] {
  return thrownIssues(() => parseJobsConfig(text, 'jobs.yaml'));
}
