import { readFileSync } from 'node:fs';
import type { JobDefinition } from './job.ts';
import type { RecordedZone } from './recorded-zones.ts';

/** The file the stack writes next to each Lambda's bundled handler. */
export const JOBS_BUNDLE_FILE = 'jobs.json';

/**
 * What the stack ships to the dispatcher and the recorder: every configured job, and what the
 * synthesizing machine knew when it computed the covering schedules.
 *
 * A file beside the handler rather than a constant compiled into it: esbuild's `define` passes
 * its value as one command-line argument, which Linux caps at 128 KiB (about 290 jobs).
 */
export interface JobsBundle {
  readonly version: 1;
  /** Every configured job, enabled or not, in file order. */
  readonly jobs: readonly JobDefinition[];
  /** The IANA time-zone data version synth ran with (`process.versions.tz`), or `unknown`. */
  readonly zoneDataVersion: string;
  /** The Node.js and ICU synth ran on (`process.version`, `process.versions.icu`), for logs. */
  readonly platform: ZoneDataPlatform;
  /**
   * Per job, in `jobs` order, a fingerprint of what its covering schedule was computed for: the
   * 16 hex digits of `scheduleFingerprint(job, synthesizedAt).hash` (its runs and its zone's
   * transitions over the following 366 days), or 16 dashes for a disabled job; packed into one
   * string, which costs the cold start next to nothing to parse (a key per job costs tens of
   * milliseconds for 10,000 jobs). Empty in a bundle from before fingerprints.
   * `unpackFingerprints` reads it.
   */
  readonly fingerprints: string;
  /**
   * Per zone of an enabled job, its offsets as synth read them over the fingerprints' span
   * (`recordZone`): what the dispatcher compares its own with, and rebuilds synth's rules from.
   */
  readonly zones: Readonly<Record<string, RecordedZone>>;
  /** UTC ISO instant of the synth; the start of every fingerprint's window. */
  readonly synthesizedAt: string;
}

/** Where a copy of the tz database came from. */
export interface ZoneDataPlatform {
  /** `process.version`, e.g. `v20.20.2`. */
  readonly node: string;
  /** `process.versions.icu`, e.g. `78.2`, or `unknown`. */
  readonly icu: string;
}

/**
 * The running Node.js and its ICU.
 *
 * @example
 * currentPlatform() //=> { node: 'v20.20.2', icu: '78.2' }
 */
export function currentPlatform(): ZoneDataPlatform {
  return { node: process.version, icu: process.versions.icu ?? 'unknown' };
}

/** The bundle file is present but not a jobs bundle this code understands. */
export class InvalidJobsBundleError extends Error {
  readonly path: string;
  constructor(path: string, reason: string) {
    super(`${path} is not a zonecron jobs bundle (${reason})`);
    this.name = new.target.name;
    this.path = path;
  }
}

/**
 * Reads the jobs bundle next to a handler; an empty bundle when there is no such file (the
 * handler loaded from source, in tests).
 *
 * @example
 * const bundle = loadJobsBundle(new URL(JOBS_BUNDLE_FILE, import.meta.url));
 * bundle.jobs.length //=> 6
 */
export function loadJobsBundle(url: URL): JobsBundle {
  let text: string;
  try {
    text = readFileSync(url, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return emptyJobsBundle();
  }
  const parsed = JSON.parse(text) as Partial<JobsBundle>;
  if (parsed.version !== 1) {
    throw new InvalidJobsBundleError(url.pathname, `version ${String(parsed.version)}`);
  }
  if (!Array.isArray(parsed.jobs)) {
    throw new InvalidJobsBundleError(url.pathname, 'jobs is not a list');
  }
  return {
    version: 1,
    jobs: parsed.jobs,
    zoneDataVersion: parsed.zoneDataVersion ?? 'unknown',
    platform: parsed.platform ?? UNKNOWN_PLATFORM,
    fingerprints: typeof parsed.fingerprints === 'string' ? parsed.fingerprints : '',
    zones: parsed.zones ?? {},
    synthesizedAt: parsed.synthesizedAt ?? '',
  };
}

const UNKNOWN_PLATFORM: ZoneDataPlatform = { node: 'unknown', icu: 'unknown' };

/** A bundle with no jobs. */
export function emptyJobsBundle(): JobsBundle {
  return {
    version: 1,
    jobs: [],
    zoneDataVersion: 'unknown',
    platform: UNKNOWN_PLATFORM,
    fingerprints: '',
    zones: {},
    synthesizedAt: '',
  };
}

/** Characters of one packed fingerprint. */
const FINGERPRINT_LENGTH = 16;
/** The packed place of a job without a fingerprint. */
const NO_FINGERPRINT = '-'.repeat(FINGERPRINT_LENGTH);

/**
 * Packs fingerprints by job id into the bundle's string, in `jobs` order.
 *
 * @example
 * packFingerprints([daily, off], { daily: 'b76e515420e26758' })
 * //=> 'b76e515420e26758----------------'
 */
export function packFingerprints(
  jobs: readonly Pick<JobDefinition, 'id'>[],
  byJob: Readonly<Record<string, string>>,
): string {
  return jobs
    .map((job) => {
      const hash = Object.hasOwn(byJob, job.id) ? byJob[job.id] : undefined;
      return hash?.length === FINGERPRINT_LENGTH ? hash : NO_FINGERPRINT;
    })
    .join('');
}

/**
 * The bundle's fingerprints by job id: the jobs with one (none when the string does not have
 * one place per job).
 *
 * @example
 * unpackFingerprints([daily, off], 'b76e515420e26758----------------') //=> { daily: 'b76e515420e26758' }
 */
export function unpackFingerprints(
  jobs: readonly Pick<JobDefinition, 'id'>[],
  packed: string,
): Record<string, string> {
  const byJob: Record<string, string> = {};
  if (packed.length !== jobs.length * FINGERPRINT_LENGTH) return byJob;
  jobs.forEach((job, i) => {
    const hash = packed.slice(i * FINGERPRINT_LENGTH, (i + 1) * FINGERPRINT_LENGTH);
    if (hash !== NO_FINGERPRINT) byJob[job.id] = hash;
  });
  return byJob;
}
