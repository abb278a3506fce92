import { readFileSync } from 'node:fs';
import { DeploymentError, isDeploymentError } from '#shared/errors.ts';
import {
  type HolidaySource,
  type HolidayTable,
  holidayTableSource,
} from '../calendar/holiday-source.ts';
import type { JobDefinition } from './job.ts';

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
  readonly version: 2;
  /** Every configured job, enabled or not, in file order. */
  readonly jobs: readonly JobDefinition[];
  /** The IANA time-zone data version synth ran with (`process.versions.tz`), or `unknown`. */
  readonly zoneDataVersion: string;
  /** The zonecron package synth ran (package.json `version`); absent from older bundles. */
  readonly zonecronVersion?: string;
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
  /**
   * The holidays of the codes the jobs' calendars name, computed at synth from the
   * `date-holidays` version it records: the Lambdas' only holiday data (they never load the
   * package). Absent when no calendar names holidays, and in a bundle from before calendars.
   */
  readonly holidays?: HolidayTable;
}

/**
 * A zone's offsets as synth saw them around a fingerprint's window: the offset at the start and
 * every change after it, `[UTC minute since the epoch, offset after]`, in order. Offsets are
 * whole minutes east of UTC.
 *
 * The span is the fingerprint window widened by its reach on both sides,
 * `[from - reach, from + horizon + reach]`: every offset a fingerprint, and the first
 * disagreement after it, can depend on (architecture §1, "Schedule fingerprints").
 *
 * Part of the bundle's format, so stated with it; `recordZone` (functions/zone-drift/) writes it.
 */
export interface RecordedZone {
  readonly offsetMinutes: number;
  readonly transitions: readonly (readonly [utcMinute: number, offsetAfterMinutes: number])[];
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

/** Everything in a jobs bundle but the jobs. */
export type JobsBundleHeader = Omit<JobsBundle, 'jobs'>;

/**
 * The configured jobs, by id. The Lambdas read them from the bundle file lazily: a tick looks
 * up its one job without parsing the others (`openJobsBundle`).
 */
export interface JobCatalog {
  get(id: string): JobDefinition | undefined;
  /** Every job, in file order. */
  all(): readonly JobDefinition[];
}

/** The bundle file is present but not a jobs bundle this code understands. */
export class InvalidJobsBundleError extends DeploymentError {
  readonly path: string;
  constructor(path: string, reason: string) {
    super(`${path} is not a zonecron jobs bundle (${reason})`);
    this.path = path;
  }
}

const VERSION_PREFIX = '{"version":2,';

/** The text that starts a job's line: a newline, then the job's id as its first member. */
function lineStart(id: string): string {
  return `\n{"id":${JSON.stringify(id)},`;
}

/**
 * The bundle as the file holds it: valid JSON, with each job on a line of its own that starts
 * with its id, so a reader can find one job by a byte search (`openJobsBundle`).
 *
 * @example
 * serializeJobsBundle({ ...emptyJobsBundle(), jobs: [job], zoneDataVersion: '2025c' })
 * //=> '{"version":2,"zoneDataVersion":"2025c",…,"jobs":[\n{"id":"daily",…}\n]}'
 */
export function serializeJobsBundle(bundle: JobsBundle): string {
  const { version, jobs, ...rest } = bundle;
  const head = JSON.stringify({ version, ...rest }).slice(0, -1);
  const lines = jobs.map(({ id, ...rest }) => `\n${JSON.stringify({ id, ...rest })}`);
  return `${head},"jobs":[${lines.join(',')}\n]}`;
}

/**
 * A catalog over jobs already in memory (tests, the simulation, the CLI).
 *
 * @example
 * jobCatalog([job]).get('daily') //=> job
 */
export function jobCatalog(jobs: readonly JobDefinition[]): JobCatalog {
  const byId = new Map(jobs.map((job) => [job.id, job]));
  return { get: (id) => byId.get(id), all: () => jobs };
}

/**
 * The jobs bundle next to a handler, read on first use: `get` finds one job's line and parses
 * only that; `all` and `header` parse the whole file once. An empty catalog when there is no
 * such file (the handler loaded from source, in tests). `holidays` is the bundle's holiday
 * table as a source, read (the header only) when a calendar first asks; the handler that
 * computes runs registers it (`useHolidaySource`), at the edge as the loader registers the
 * whole data set, so opening a bundle changes nothing process-wide.
 *
 * @example
 * const bundle = openJobsBundle(new URL(JOBS_BUNDLE_FILE, import.meta.url));
 * bundle.catalog.get('daily')?.schedule //=> '30 2 * * *'
 */
export function openJobsBundle(url: URL): {
  readonly catalog: JobCatalog;
  readonly holidays: HolidaySource;
  header(): JobsBundleHeader;
} {
  let text: Buffer | undefined;
  let parsed: JobsBundle | undefined;
  const found = new Map<string, JobDefinition | undefined>();
  const file = () => (text ??= readBundleFile(url));
  const whole = () => {
    if (!parsed) {
      parsed = parseBundle(url.pathname, file());
      for (const job of parsed.jobs) found.set(job.id, job);
    }
    return parsed;
  };
  return {
    catalog: {
      get(id) {
        if (!found.has(id) && !parsed) found.set(id, findJob(file(), id));
        return found.get(id);
      },
      all: () => whole().jobs,
    },
    holidays: lazyHolidaySource(() => (parsed ?? headOf(url.pathname, file())).holidays),
    header() {
      const { jobs: _jobs, ...header } = whole();
      return header;
    },
  };
}

/**
 * A whole jobs bundle from its bytes, read elsewhere than beside a handler (the CLI reads the
 * deployed dispatcher's); `name` says where it came from in an error.
 *
 * @example
 * parseJobsBundle(bytes, 'Zonecron-Dispatcher:jobs.json').jobs[0]?.id //=> 'daily'
 */
export function parseJobsBundle(text: Buffer, name: string): JobsBundle {
  checkVersion(text, name);
  return parseBundle(name, text);
}

function checkVersion(text: Buffer, name: string): void {
  if (!text.subarray(0, VERSION_PREFIX.length).equals(Buffer.from(VERSION_PREFIX))) {
    throw new InvalidJobsBundleError(name, `it does not start with ${VERSION_PREFIX}`);
  }
}

function readBundleFile(url: URL): Buffer {
  let text: Buffer;
  try {
    text = readFileSync(url);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return Buffer.from(serializeJobsBundle(emptyJobsBundle()));
  }
  checkVersion(text, url.pathname);
  return text;
}

/** The text between the header and the first job: no JSON string holds a raw newline. */
const JOBS_START = ',"jobs":[\n';

/** The bundle's header alone, without parsing its jobs. */
function headOf(name: string, text: Buffer): JobsBundleHeader {
  const end = text.indexOf(JOBS_START);
  if (end < 0) return parseBundle(name, text);
  return JSON.parse(`${text.toString('utf8', 0, end)}}`) as JobsBundleHeader;
}

/**
 * A holiday source over a table read on its first question (none: it knows nothing). A bundle
 * that cannot be read knows nothing either: the question passes to the next source, or ends in
 * `HolidayDataMissingError`, and reading the bundle's jobs reports the file's own error.
 */
function lazyHolidaySource(table: () => HolidayTable | undefined): HolidaySource {
  let source: HolidaySource | undefined;
  return {
    holidaysOf(code, types, year) {
      if (source === undefined) {
        const read = readableTable(table);
        source = read === undefined ? { holidaysOf: () => undefined } : holidayTableSource(read);
      }
      return source.holidaysOf(code, types, year);
    },
  };
}

function findJob(text: Buffer, id: string): JobDefinition | undefined {
  const start = text.indexOf(lineStart(id));
  if (start < 0) return undefined;
  const end = text.indexOf('\n', start + 1);
  const line = text.toString('utf8', start + 1, end < 0 ? text.length : end);
  return JSON.parse(line.endsWith(',') ? line.slice(0, -1) : line) as JobDefinition;
}

function parseBundle(name: string, text: Buffer): JobsBundle {
  const parsed = JSON.parse(text.toString('utf8')) as Partial<JobsBundle>;
  if (!Array.isArray(parsed.jobs)) {
    throw new InvalidJobsBundleError(name, 'jobs is not a list');
  }
  return {
    version: 2,
    jobs: parsed.jobs,
    zoneDataVersion: parsed.zoneDataVersion ?? 'unknown',
    ...(parsed.zonecronVersion === undefined ? {} : { zonecronVersion: parsed.zonecronVersion }),
    platform: parsed.platform ?? UNKNOWN_PLATFORM,
    fingerprints: typeof parsed.fingerprints === 'string' ? parsed.fingerprints : '',
    zones: parsed.zones ?? {},
    synthesizedAt: parsed.synthesizedAt ?? '',
    ...(parsed.holidays === undefined ? {} : { holidays: parsed.holidays }),
  };
}

const UNKNOWN_PLATFORM: ZoneDataPlatform = { node: 'unknown', icu: 'unknown' };

/** A bundle with no jobs. */
export function emptyJobsBundle(): JobsBundle {
  return {
    version: 2,
    jobs: [],
    zoneDataVersion: 'unknown',
    platform: UNKNOWN_PLATFORM,
    fingerprints: '',
    zones: {},
    synthesizedAt: '',
  };
}

/**
 * A catalog from what a caller passes: a catalog as is, a list wrapped by `jobCatalog`.
 *
 * @example
 * catalogOf([job]).get('daily') //=> job
 */
export function catalogOf(jobs: readonly JobDefinition[] | JobCatalog): JobCatalog {
  return isJobList(jobs) ? jobCatalog(jobs) : jobs;
}

function isJobList(jobs: readonly JobDefinition[] | JobCatalog): jobs is readonly JobDefinition[] {
  return Array.isArray(jobs);
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

function readableTable(table: () => HolidayTable | undefined): HolidayTable | undefined {
  try {
    return table();
  } catch (error) {
    if (isDeploymentError(error)) return undefined;
    throw error;
  }
}
