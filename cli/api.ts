/**
 * The `zonecron` package's programmatic surface (`import … from 'zonecron'`): what the CLI
 * answers with, for scripts and tests of a team's own repository.
 *
 * The jobs file's loader (`zonecron validate` checks the same, short of the synth), the
 * engine's answers to "when does this run" (`zonecron next`), and their typed errors. The CDK
 * part is the other entry, `zonecron/cdk` (`infra/app/add-zonecron.ts`).
 */

export {
  CronSyntaxError,
  InvalidArgumentError,
  InvalidTimeZoneError,
  isScheduleError,
  type NextRun,
  nextOccurrences,
  nextRun,
  type Occurrence,
  occurrencesBetween,
  parseCron,
  ScheduleError,
  type ScheduleSpec,
  validateTimeZone,
} from '../functions/schedule/index.ts';
export {
  ConfigError,
  type ConfigIssue,
  type ConfigIssueCode,
  DEFAULT_JOBS_FILE,
  isConfigError,
  type JobsConfig,
  loadJobsFile,
  parseJobsConfig,
} from '../infra/config/load-jobs.ts';
export { type PreviewRun, previewRuns, type RunPreview } from './format/run-preview.ts';
