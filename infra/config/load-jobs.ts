/**
 * Loads `jobs.yaml` into validated `JobDefinition`s: every field checked by zod, every schedule
 * and zone checked by the engine, every problem reported with its file, line and column.
 *
 * It never returns a half-valid config: one problem anywhere and it throws a `ConfigError`
 * that lists all of them. The stack, the dispatcher bundle and the CLI all load the file through
 * here, so they can never disagree about what a job means.
 *
 * The steps, each in a file of its own: reading (`read-jobs-file.ts`: bytes, UTF-8, YAML with
 * positions), collecting issues (`issue-collector.ts`), defaults to definitions
 * (`job-definitions.ts`), and the rules across jobs (`cross-job-rules.ts`).
 */

import { lambdaTargetRef } from '#jobs/target-arn.ts';
import { DEFAULT_RETENTION_DAYS } from '#shared/defaults.ts';
import { parseCalendars } from './calendar-definitions.ts';
import {
  ConfigError,
  type ConfigIssue,
  type ConfigIssueCode,
  isConfigError,
} from './config-error.ts';
import { applyCrossJobRules } from './cross-job-rules.ts';
import { useFullHolidayData } from './holiday-data.ts';
import { parseJobs } from './job-definitions.ts';
import type { CompletionConfig, JobsConfig } from './jobs-config.ts';
import { pastWarnings } from './past-warnings.ts';
import { isPlainObject } from './raw-data.ts';
import { readJobsText, readYamlDocument } from './read-jobs-file.ts';
import { defaultsSchema, fileSchema } from './schema.ts';

export type { CompletionConfig, JobsConfig };
export { ConfigError, type ConfigIssue, type ConfigIssueCode, isConfigError };

/** The file the CDK app and the CLI read unless told otherwise (`-c jobs=…`, `--jobs`). */
export const DEFAULT_JOBS_FILE = 'jobs.yaml';

/**
 * Reads and validates a jobs file.
 *
 * Throws `ConfigError` when the file is missing or unreadable, too.
 *
 * @example
 * const config = loadJobsFile('jobs.yaml');
 * config.jobs[0]?.catchup //=> { policy: 'all', windowSeconds: 86400, maxRuns: 100 }
 */
export function loadJobsFile(path: string, options: LoadOptions = {}): JobsConfig {
  return parseJobsConfig(readJobsText(path), path, options);
}

/** What the loader may be told besides the file. */
export interface LoadOptions {
  /**
   * The reference instant of the warnings (`JobsConfig.warnings`: an `until:` or `at:` that
   * has passed). The loader never reads the clock: without it there are no such warnings.
   *
   * @default none
   */
  readonly now?: Date;
}

/**
 * Validates the text of a jobs file; `fileName` is only used in messages and `JobsConfig.file`.
 *
 * @example
 * parseJobsConfig(`
 * jobs:
 *   - id: nightly
 *     description: Nightly report
 *     schedule: '30 2 * * *'
 *     timezone: Europe/Berlin
 *     target: { type: lambda, arn: 'arn:aws:lambda:eu-west-1:123456789012:function:report' }
 * `, 'jobs.yaml').jobs[0]?.maxRuntimeSeconds //=> 3600
 */
export function parseJobsConfig(
  text: string,
  fileName: string,
  options: LoadOptions = {},
): JobsConfig {
  useFullHolidayData();
  const { data, collector } = readYamlDocument(text, fileName);
  const file = fileSchema.safeParse(data ?? undefined, { reportInput: true });
  if (!file.success) collector.addZod(file.error.issues, []);

  const root = isPlainObject(data) ? data : {};
  const rawDefaults = root.defaults;
  if (rawDefaults !== undefined) {
    const parsed = defaultsSchema.safeParse(rawDefaults, { reportInput: true });
    if (!parsed.success) collector.addZod(parsed.error.issues, ['defaults']);
  }
  const fileData = file.success ? file.data : undefined;
  const retentionDays = fileData?.retention?.days ?? DEFAULT_RETENTION_DAYS;
  const rawJobs = Array.isArray(root.jobs) ? root.jobs : [];
  const calendars = parseCalendars(root.calendars, collector);
  const jobs = parseJobs({ rawJobs, rawDefaults, retentionDays, calendars, collector });

  const completion: CompletionConfig = {
    lambdaInvokeConfig: fileData?.completion?.lambdaInvokeConfig ?? 'create',
    existingInvokeConfigs: (fileData?.completion?.existingInvokeConfigs ?? []).map(
      (arn) => lambdaTargetRef(arn).key,
    ),
  };
  const alarmTopicArn = fileData?.alarms?.topicArn;
  const environment = fileData?.environment;
  if (file.success) {
    applyCrossJobRules(
      { jobs, completion, alarmTopicArn, environment, rawJobs, rawDefaults },
      collector,
    );
  }

  if (collector.hasIssues()) throw collector.error();
  return {
    file: fileName,
    jobs,
    warnings: options.now === undefined ? [] : pastWarnings(jobs, rawJobs, options.now, collector),
    alarmEmails: fileData?.alarms?.email ?? [],
    retentionDays,
    completion,
    ...(alarmTopicArn === undefined ? {} : { alarmTopicArn }),
    ...(environment === undefined ? {} : { environment }),
  };
}
