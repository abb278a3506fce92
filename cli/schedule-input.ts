/**
 * What a command line says about a schedule (an expression, a zone, a job id), checked by the
 * engine or against the jobs file. Bad input there is a usage error, exit code 2, whichever
 * command it was given to; the same mistake inside a jobs file is an invalid file, exit 1.
 *
 * The engine is imported when a check runs, so that `--help` does not load it.
 */
import { closestName } from '#text/message-text.ts';
import { CliError, USAGE_EXIT_CODE, usageError } from './errors.ts';

/**
 * Runs an engine step on command-line input; an engine error becomes a usage error (exit 2)
 * with `describe`'s message.
 *
 * @example
 * await asUsage(() => parseCron('61 * * * *'))
 * //=> throws CliError (exit code 2): invalid value '61' for field 'minute' at position 0 (allowed 0-59)
 */
export async function asUsage<T>(
  step: () => T,
  describe: (message: string) => string = (message) => message,
): Promise<T> {
  const { isScheduleError } = await import('../functions/schedule/index.ts');
  try {
    return step();
  } catch (error) {
    if (!isScheduleError(error)) throw error;
    throw new CliError(describe(error.message), { exitCode: USAGE_EXIT_CODE, cause: error });
  }
}

/**
 * The plain-English sentence of an expression typed on the command line; a bad one is a usage
 * error with the engine's message and, for an AWS or Quartz expression, how to write it in
 * five fields.
 *
 * @example
 * await sentenceOf('30 2 * * *')
 * //=> 'at 02:30 every day'
 * await sentenceOf('cron(30 2 * * ? *)')
 * //=> throws CliError (exit code 2): expected 5 fields … write it as `30 2 * * *`
 */
export async function sentenceOf(expression: string, jobId?: string): Promise<string> {
  const { explainCron } = await import('./format/explain.ts');
  const { withCronHint } = await import('../infra/config/cron-hint.ts');
  return asUsage(
    () => explainCron(expression, jobId === undefined ? {} : { jobId }),
    (message) => withCronHint(message, expression),
  );
}

/**
 * A zone typed on the command line (`--tz`), checked by the engine's one zone check; a
 * refused one is a usage error saying why and what to write.
 *
 * @example
 * await checkZone('europe/berlin')
 * //=> throws CliError (exit code 2): invalid time zone 'europe/berlin': wrong case; did you
 * //   mean 'Europe/Berlin'? (allowed an IANA zone name such as Europe/Berlin)
 */
export async function checkZone(zone: string): Promise<string> {
  const { validateTimeZone } = await import('../functions/schedule/index.ts');
  return asUsage(() => validateTimeZone(zone));
}

/** How many job ids an "unknown job" message lists. */
const LISTED_IDS = 8;

/**
 * The job of a jobs file with id `jobId`; an unknown id is a usage error with the closest id
 * and the first few known ones.
 *
 * @example
 * findJob(loadJobsFile('jobs.yaml'), 'berlin-nightly-reprot')
 * //=> throws CliError (exit code 2): unknown job 'berlin-nightly-reprot' in jobs.yaml; did you
 * //   mean 'berlin-nightly-report'? (6 jobs: berlin-nightly-report, ny-billing-sync, …)
 */
export function findJob<Job extends { readonly id: string }>(
  config: { readonly file: string; readonly jobs: readonly Job[] },
  jobId: string,
): Job {
  const job = config.jobs.find((j) => j.id === jobId);
  if (job !== undefined) return job;
  const ids = config.jobs.map((j) => j.id);
  const mean = didYouMean(jobId, ids);
  const more = ids.length > LISTED_IDS ? ', …' : '';
  const known = `${ids.length} job${ids.length === 1 ? '' : 's'}: ${ids.slice(0, LISTED_IDS).join(', ')}${more}`;
  throw usageError(`unknown job '${jobId}' in ${config.file}${mean} (${known})`);
}

/**
 * The ids an unknown one may have meant: those it begins (a prefix typed for the whole id),
 * else the closest by spelling; '' when none is near.
 *
 * @example
 * didYouMean('berlin', ['berlin-nightly-report', 'berlin-weekly', 'ny-billing-sync'])
 * //=> "; did you mean one of the ids starting with 'berlin': berlin-nightly-report, berlin-weekly?"
 */
function didYouMean(jobId: string, ids: readonly string[]): string {
  const prefixed = jobId === '' ? [] : ids.filter((id) => id.startsWith(jobId));
  if (prefixed.length === 1) return `; did you mean '${prefixed[0]}'?`;
  if (prefixed.length > 1) {
    const listed = prefixed.slice(0, LISTED_IDS).join(', ');
    const more = prefixed.length > LISTED_IDS ? `, … (${prefixed.length})` : '';
    return `; did you mean one of the ids starting with '${jobId}': ${listed}${more}?`;
  }
  const closest = closestName(jobId, ids, { maxDistance: Math.max(2, jobId.length >> 2) });
  return closest === undefined ? '' : `; did you mean '${closest}'?`;
}
