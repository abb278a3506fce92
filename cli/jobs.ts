import type { ScheduleSpec } from '../functions/schedule/index.ts';
import type { JobDefinition } from '../functions/shared/job.ts';

/** The engine's view of a job: its expression, zone, id (for `H`) and DST overrides. */
export function jobSpec(job: JobDefinition): ScheduleSpec {
  return {
    cron: job.schedule,
    timezone: job.timezone,
    jobId: job.id,
    ...(job.dst ? { dst: job.dst } : {}),
  };
}
