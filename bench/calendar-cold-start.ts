/**
 * What a Lambda does at cold start for a calendar job's first closed-day question, bundled like
 * the handler (`npm run bench:dispatch`, section 7): open the jobs bundle beside it, find the
 * job named by `ZONECRON_BENCH_JOB`, build its calendar from the bundle's holiday table and ask
 * one date. A job without a calendar asks nothing: the difference is the calendar's cost.
 */
import { scheduleSpecOf } from '#jobs/job.ts';
import { JOBS_BUNDLE_FILE, openJobsBundle } from '#jobs/jobs-bundle.ts';
import { useHolidaySource } from '../functions/calendar/holiday-source.ts';

const { catalog, holidays } = openJobsBundle(new URL(JOBS_BUNDLE_FILE, import.meta.url));
useHolidaySource(holidays);
const job = catalog.get(process.env.ZONECRON_BENCH_JOB ?? '');
if (job === undefined) throw new Error(`no job ${process.env.ZONECRON_BENCH_JOB} in the bundle`);
scheduleSpecOf(job).calendar?.calendar.closedDayReason('2026-12-25');
