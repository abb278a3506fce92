import type { JobDefinition } from '#jobs/job.ts';
import { currentPlatform } from '#jobs/jobs-bundle.ts';
import { compareZoneDataVersions, zoneDataVersion } from '#zone-drift/zone-fingerprint.ts';
import type { Colours } from '../format/colour.ts';
import { wrap } from '../format/table.ts';
import { RECENT_ZONE_CHANGES, type ZoneRuleChange } from './recent-changes.ts';

/** How far back a change counts as recent: where drift between two copies is most likely. */
const RECENT_MS = 2 * 365 * 86_400_000;
/** A job's next year of runs, as validate looks at it. */
const YEAR_MS = 366 * 86_400_000;

/** A copy of the tz database: its release, and the ICU and Node.js that carry it. */
export interface ZoneDataInUse {
  readonly tz: string;
  readonly icu: string;
  readonly node: string;
}

/** One recent change to a job zone's offsets within its next year of runs. */
export interface ZoneChangeWarning {
  /** The zone as the jobs name it. */
  readonly timezone: string;
  /** The enabled jobs in it. */
  readonly jobIds: readonly string[];
  readonly release: string;
  readonly releasedOn: string;
  readonly summary: string;
  /** UTC ISO instant from which data older than the release disagrees. */
  readonly differsFrom: string;
  /** Whether the zone data in use carries the change. */
  readonly knownHere: boolean;
  readonly source: string;
  /** One paragraph for a human: what changed and what it means here. */
  readonly text: string;
}

/** What `zoneDataReport` finds. */
export interface ZoneDataReport {
  /** The zone data synth computes the covering schedules with on this machine. */
  readonly zoneData: ZoneDataInUse;
  /** The newest release the table of recent changes knows. */
  readonly changesKnownThrough: string;
  readonly warnings: readonly ZoneChangeWarning[];
}

/** The options of `zoneDataReport`, for tests: the defaults are this machine and the table. */
export interface ZoneDataReportOptions {
  readonly zoneData?: ZoneDataInUse;
  readonly changes?: readonly ZoneRuleChange[];
}

/**
 * The zone data in use, and a warning per recent rule change (released in the two years before
 * `from`, or since) that touches an enabled job's zone within the year after `from`: where a
 * machine or a Lambda runtime with other zone data computes different runs. For `validate` and
 * `describe`.
 *
 * @example
 * zoneDataReport(config.jobs, new Date('2026-11-30T00:00:00Z')).warnings[0]
 * //=> { timezone: 'America/Vancouver', jobIds: ['payroll'], release: '2026b', knownHere: false, … }
 */
export function zoneDataReport(
  jobs: readonly JobDefinition[],
  from: Date,
  options: ZoneDataReportOptions = {},
): ZoneDataReport {
  const zoneData = options.zoneData ?? zoneDataInUse();
  const changes = options.changes ?? RECENT_ZONE_CHANGES;
  const jobsByZone = new Map<string, string[]>();
  for (const job of jobs) {
    if (job.enabled)
      jobsByZone.set(job.timezone, [...(jobsByZone.get(job.timezone) ?? []), job.id]);
  }
  const warnings: ZoneChangeWarning[] = [];
  for (const change of changes.filter((c) => touchesYear(c, from))) {
    for (const [timezone, jobIds] of jobsByZone) {
      if (!change.zones.some((zone) => sameZone(zone, timezone))) continue;
      warnings.push(warningOf(change, timezone, jobIds, zoneData.tz));
    }
  }
  return { zoneData, changesKnownThrough: newestRelease(changes), warnings };
}

/**
 * This machine's zone data.
 *
 * @example
 * zoneDataInUse() //=> { tz: '2025c', icu: '78.2', node: 'v20.20.2' }
 */
export function zoneDataInUse(): ZoneDataInUse {
  return { tz: zoneDataVersion(), ...currentPlatform() };
}

/** Released in the two years before `from` (or since), and disagreeing within its next year. */
function touchesYear(change: ZoneRuleChange, from: Date): boolean {
  const releasedMs = Date.parse(`${change.releasedOn}T00:00:00Z`);
  return (
    releasedMs >= from.getTime() - RECENT_MS &&
    Date.parse(change.differsFrom) <= from.getTime() + YEAR_MS
  );
}

/** The same zone, by name or by the platform's canonical name (`Canada/Pacific`). */
function sameZone(a: string, b: string): boolean {
  return a === b || canonicalZone(a) === canonicalZone(b);
}

function canonicalZone(zone: string): string {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return zone;
  }
}

function warningOf(
  change: ZoneRuleChange,
  timezone: string,
  jobIds: readonly string[],
  tz: string,
): ZoneChangeWarning {
  const order = compareZoneDataVersions(tz, change.release);
  const knownHere = order !== undefined && order >= 0;
  const since = `${change.differsFrom.slice(0, 16)}Z`;
  const here = knownHere
    ? `This machine's zone data (${tz}) has it; a Node.js with data older than ${change.release}, such as a Lambda runtime AWS has not updated yet, computes these runs differently from ${since}, and the dispatcher reports that as ZoneDataDrift.`
    : `This machine's zone data (${tz}) predates it, so synth here computes the coverings with the old rules from ${since}: deploy from a Node.js with tz ${change.release} or newer.`;
  return {
    timezone,
    jobIds,
    release: change.release,
    releasedOn: change.releasedOn,
    summary: change.summary,
    differsFrom: new Date(change.differsFrom).toISOString(),
    knownHere,
    source: change.source,
    text: `${timezone} changed in tz ${change.release} (${change.releasedOn}): ${change.summary} ${here}`,
  };
}

function newestRelease(changes: readonly ZoneRuleChange[]): string {
  let newest = '';
  for (const { release } of changes) {
    if (newest === '' || (compareZoneDataVersions(release, newest) ?? 0) > 0) newest = release;
  }
  return newest;
}

/**
 * The report as lines for a terminal, within 80 columns: the zone data in use, then one
 * warning per change and zone, naming the jobs.
 *
 * @example
 * zoneDataLines(report, coloursFor(process.stdout))
 * //=> ['zone data: tz 2025c (ICU 78.2, Node v20.20.2); zonecron knows of releases through 2026d', …]
 */
export function zoneDataLines(report: ZoneDataReport, c: Colours): string[] {
  const { zoneData, changesKnownThrough: newest } = report;
  const behind = (compareZoneDataVersions(zoneData.tz, newest) ?? 0) < 0;
  const lines = [
    wrap(
      `zone data: tz ${zoneData.tz} (ICU ${zoneData.icu}, Node ${zoneData.node}), which synth computes every covering with${behind ? `; zonecron knows of releases through ${newest}` : ''}`,
      '',
    ),
  ];
  for (const w of report.warnings) {
    const jobs =
      w.jobIds.length > 3
        ? `${w.jobIds.slice(0, 3).join(', ')} and ${w.jobIds.length - 3} more`
        : w.jobIds.join(', ');
    lines.push(c.yellow(wrap(`${w.text} Jobs: ${jobs}.`, 'ZONE ')));
  }
  return lines;
}
