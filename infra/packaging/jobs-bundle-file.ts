import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JobDefinition } from '#jobs/job.ts';
import {
  currentPlatform,
  JOBS_BUNDLE_FILE,
  type JobsBundle,
  packFingerprints,
  serializeJobsBundle,
} from '#jobs/jobs-bundle.ts';
import { recordSchedules } from '#zone-drift/zone-drift.ts';
import { zoneDataVersion } from '#zone-drift/zone-fingerprint.ts';
import { holidayTable } from '../../functions/calendar/date-holidays-data.ts';
import type { HolidayTable } from '../../functions/calendar/holiday-source.ts';
import type { ZoneRules } from '../../functions/schedule/index.ts';
import { zonecronVersion } from './package-root.ts';

/** What a jobs bundle records besides the jobs. */
export interface JobsBundleOptions {
  /** When synth ran: the start of every fingerprint's window. */
  readonly synthTime: Date;
  /**
   * The zone rules the fingerprints and zone records are computed with. Only tests change it,
   * to make a bundle as a machine with other zone data would.
   *
   * @default intlZoneRules (this machine's)
   */
  readonly zoneRules?: ZoneRules;
}

/** Bundles made on this machine's rules, by jobs list and synth time: validate asks twice. */
const made = new WeakMap<readonly JobDefinition[], Map<number, JobsBundle>>();

/**
 * The jobs bundle the stack ships to both Lambdas (`functions/jobs/jobs-bundle.ts`): the
 * jobs, the zonecron version, this machine's zone-data version and platform, the holiday table
 * of the codes their calendars name (with the date-holidays version), and per enabled job the
 * fingerprint of
 * what its covering is computed for, with the offsets of its zone over the fingerprint's span
 * (about 0.1 ms per job; architecture §1, "Schedule fingerprints"). The same jobs list and
 * synth time give the same bundle, computed once.
 *
 * @example
 * createJobsBundle(config.jobs, { synthTime: new Date() }).zoneDataVersion //=> '2025c'
 */
export function createJobsBundle(
  jobs: readonly JobDefinition[],
  options: JobsBundleOptions,
): JobsBundle {
  if (options.zoneRules !== undefined) return bundleOf(jobs, options);
  const byTime = made.get(jobs) ?? new Map<number, JobsBundle>();
  made.set(jobs, byTime);
  const key = options.synthTime.getTime();
  const bundle = byTime.get(key) ?? bundleOf(jobs, options);
  byTime.set(key, bundle);
  return bundle;
}

function bundleOf(jobs: readonly JobDefinition[], options: JobsBundleOptions): JobsBundle {
  const record = recordSchedules(jobs, options.synthTime, {
    ...(options.zoneRules === undefined ? {} : { rules: options.zoneRules }),
  });
  return {
    version: 2,
    jobs,
    zoneDataVersion: zoneDataVersion(),
    zonecronVersion: zonecronVersion(import.meta.url),
    platform: currentPlatform(),
    fingerprints: packFingerprints(jobs, record.fingerprints),
    zones: record.zones,
    synthesizedAt: record.synthesizedAt,
    ...holidaysOf(jobs, options.synthTime),
  };
}

/**
 * The holiday table of the codes the jobs' calendars name (with their holiday types), around
 * the synth year; nothing when no calendar names holidays. Every job counts, disabled ones too:
 * `zonecron next` previews them from the deployed bundle.
 */
function holidaysOf(jobs: readonly JobDefinition[], synthTime: Date): { holidays?: HolidayTable } {
  const uses = jobs.flatMap((job) => {
    const definition = job.calendar?.definition;
    return definition?.holidays === undefined
      ? []
      : [{ code: definition.holidays, types: definition.holidayTypes }];
  });
  if (uses.length === 0) return {};
  return { holidays: holidayTable(uses, synthTime.getUTCFullYear()) };
}

/** Writes `jobs.json` into `dir` (created if missing); returns the file's path. */
export function writeJobsBundle(dir: string, bundle: JobsBundle): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, JOBS_BUNDLE_FILE);
  writeFileSync(path, serializeJobsBundle(bundle));
  return path;
}
