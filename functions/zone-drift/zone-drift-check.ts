import {
  currentPlatform,
  emptyJobsBundle,
  type JobsBundle,
  unpackFingerprints,
  type ZoneDataPlatform,
} from '#jobs/jobs-bundle.ts';
import {
  buildZoneDriftNotification,
  type ZoneDriftLedger,
  type ZoneDriftNoticeId,
  type ZoneDriftNotifier,
  zoneDriftKey,
} from '#ledger/index.ts';
import { describeError } from '#shared/describe-error.ts';
import type { AppLogger } from '#shared/logger.ts';
import type { AppMetrics } from '#shared/metrics.ts';
import type { ZoneRules } from '../schedule/index.ts';
import { findZoneDrift, type ScheduleRecord, type ZoneDriftFinding } from './zone-drift.ts';
import { zoneDataVersion } from './zone-fingerprint.ts';

/** What synth recorded: the jobs bundle's zone data, fingerprints packed (`jobs-bundle.ts`). */
export type RecordedZoneData = Pick<
  JobsBundle,
  'jobs' | 'zoneDataVersion' | 'platform' | 'synthesizedAt' | 'fingerprints' | 'zones'
>;

/** The runtime's side of the comparison. */
export interface RuntimeZoneData {
  /** @default intlZoneRules (this Node.js's) */
  readonly rules?: ZoneRules;
  /** @default zoneDataVersion() */
  readonly zoneDataVersion?: string;
  /** @default currentPlatform() */
  readonly platform?: ZoneDataPlatform;
}

/** Everything the check needs, injected. */
export interface ZoneDriftCheckDeps {
  /** Read at the first check (the handler's parses the whole jobs bundle then, not at load). */
  readonly recorded: () => RecordedZoneData;
  readonly ledger: ZoneDriftLedger;
  readonly notifier: ZoneDriftNotifier;
  readonly logger: AppLogger;
  readonly metrics: AppMetrics;
  /** The dispatcher's clock (`Clock`, functions/dispatcher/context.ts). */
  readonly clock: () => Date;
  readonly stackName: string;
  readonly runtime?: RuntimeZoneData;
  readonly options?: Partial<ZoneDriftOptions>;
}

/** The deps with synth's record read. */
type CheckDeps = Omit<ZoneDriftCheckDeps, 'recorded'> & { readonly recorded: RecordedZoneData };

/** Tunables of the check; every one has a default. */
export interface ZoneDriftOptions {
  /** How long a claimed notice is its claimer's to send before another may. @default 300 */
  readonly noticeLeaseSeconds: number;
  /** Notices one check tries to send; the rest wait for the next sweep. @default 50 */
  readonly noticesPerCheck: number;
  /** How long a notice is kept after the synth it is about. @default 400 days */
  readonly noticeRetentionDays: number;
}

const DEFAULT_OPTIONS: ZoneDriftOptions = {
  noticeLeaseSeconds: 300,
  noticesPerCheck: 50,
  noticeRetentionDays: 400,
};

/** The once-per-container comparison of synth's zone data with the runtime's. */
export interface ZoneDriftCheck {
  /**
   * On the first call, finds the drifted jobs (`findZoneDrift`) and logs one `zone-data-drift`
   * line per job; on every call, counts `ZoneDataDrift` (the number of drifted jobs, so the
   * alarm stays on while a container runs with drift) and sends the notices still owed, at most
   * `noticesPerCheck`. Returns the number of drifted jobs.
   *
   * Never throws: a diagnosis must not stop the sweep it rides on. A comparison that fails is
   * logged (`zone-data-check-failed`) and not tried again in this container; a notice the
   * ledger or SNS refused stays owed for the next sweep.
   */
  check(): Promise<number>;
}

/**
 * Builds the check the sweep runs (architecture §7): nothing is computed until the first
 * `check()`, so module load and ticks never pay for it; with no drift it reads and writes
 * nothing.
 *
 * @example
 * const zoneDrift = createZoneDriftCheck({ recorded: () => bundle,
 *   ledger: createZoneDriftLedger(store), notifier, logger, metrics, clock, stackName });
 * await zoneDrift.check() //=> 0
 */
export function createZoneDriftCheck(deps: ZoneDriftCheckDeps): ZoneDriftCheck {
  const options = { ...DEFAULT_OPTIONS, ...deps.options };
  const runtimeZoneData = deps.runtime?.zoneDataVersion ?? zoneDataVersion();
  let comparison: Comparison | undefined;
  let owed: ZoneDriftFinding[] = [];
  return {
    async check() {
      if (!comparison) {
        comparison = compare(deps);
        for (const finding of comparison.findings) {
          logDrift(comparison.deps, finding, runtimeZoneData);
        }
        owed = [...comparison.findings];
      }
      const { findings } = comparison;
      if (findings.length > 0) deps.metrics.global('ZoneDataDrift', findings.length);
      if (owed.length > 0) {
        try {
          owed = await sendNotices(comparison.deps, options, runtimeZoneData, owed);
        } catch (error) {
          deps.logger.error('zone-data-notice-failed', {
            decision: 'zone-data-notice-failed',
            error: describeError(error),
            owed: owed.length,
            hint: 'the notices stay owed; the next sweep sends them',
          });
        }
      }
      return findings.length;
    },
  };
}

/** Synth's record as read, and the jobs that drifted from it. */
interface Comparison {
  readonly deps: CheckDeps;
  readonly findings: readonly ZoneDriftFinding[];
}

/** The findings, or none when reading the record or comparing failed (logged once). */
function compare(deps: ZoneDriftCheckDeps): Comparison {
  let recorded: RecordedZoneData | undefined;
  try {
    recorded = deps.recorded();
    const record: ScheduleRecord = {
      synthesizedAt: recorded.synthesizedAt,
      fingerprints: unpackFingerprints(recorded.jobs, recorded.fingerprints),
      zones: recorded.zones,
    };
    const findings = findZoneDrift(recorded.jobs, record, {
      ...(deps.runtime?.rules ? { rules: deps.runtime.rules } : {}),
    });
    return { deps: { ...deps, recorded }, findings };
  } catch (error) {
    deps.logger.error('zone-data-check-failed', {
      decision: 'zone-data-check-failed',
      error: describeError(error),
      synthesizedAt: recorded?.synthesizedAt ?? 'unknown',
      hint: 'the sweep goes on; this container does not compare zone data again',
    });
    return { deps: { ...deps, recorded: emptyJobsBundle() }, findings: [] };
  }
}

function logDrift(deps: CheckDeps, finding: ZoneDriftFinding, runtimeZoneData: string) {
  const runtime = deps.runtime?.platform ?? currentPlatform();
  deps.logger.warn('zone-data-drift', {
    decision: 'zone-data-drift',
    jobId: finding.jobId,
    timezone: finding.timezone,
    expression: finding.expression,
    firstDisagreementAt: finding.firstDisagreementAt,
    kind: finding.kind,
    firstRunDifferenceAt: finding.firstRunDifferenceAt ?? null,
    runsCompared: finding.runsCompared,
    synth: finding.synth,
    runtime: finding.runtime,
    synthZoneData: deps.recorded.zoneDataVersion,
    runtimeZoneData,
    synthNode: deps.recorded.platform.node,
    runtimeNode: runtime.node,
    synthIcu: deps.recorded.platform.icu,
    runtimeIcu: runtime.icu,
    synthesizedAt: deps.recorded.synthesizedAt,
  });
}

/**
 * Sends the notices this container may: the first `noticesPerCheck` owed, less those another
 * container sent already; a notice another holds, or whose send failed, stays owed.
 */
async function sendNotices(
  deps: CheckDeps,
  options: ZoneDriftOptions,
  runtimeZoneData: string,
  owed: readonly ZoneDriftFinding[],
): Promise<ZoneDriftFinding[]> {
  const { synthesizedAt } = deps.recorded;
  const idOf = (f: ZoneDriftFinding): ZoneDriftNoticeId => ({
    synthesizedAt,
    runtimeZoneData,
    jobId: f.jobId,
  });
  const batch = owed.slice(0, options.noticesPerCheck);
  const existing = await deps.ledger.getNotices(batch.map(idOf));
  const sent = new Set<ZoneDriftFinding>();
  for (const finding of batch) {
    const notice = existing.get(zoneDriftKey(synthesizedAt, runtimeZoneData, finding.jobId));
    if (notice?.notifiedAt || (await sendNotice(deps, options, idOf(finding), finding))) {
      sent.add(finding);
    }
  }
  return owed.filter((f) => !sent.has(f));
}

/** Claims one notice and sends it; false when another holds it or the send failed. */
async function sendNotice(
  deps: CheckDeps,
  options: ZoneDriftOptions,
  id: ZoneDriftNoticeId,
  finding: ZoneDriftFinding,
): Promise<boolean> {
  const nowMs = deps.clock().getTime();
  const synthMs = Date.parse(deps.recorded.synthesizedAt);
  const claimed = await deps.ledger.claimNotice({
    ...id,
    timezone: finding.timezone,
    synthZoneData: deps.recorded.zoneDataVersion,
    firstDisagreementAt: finding.firstDisagreementAt,
    nowEpochMs: nowMs,
    leaseUntilEpochMs: nowMs + options.noticeLeaseSeconds * 1000,
    ttlEpochSec: Math.floor(synthMs / 1000) + options.noticeRetentionDays * 86_400,
  });
  if (!claimed) return false;
  const notification = buildZoneDriftNotification(finding, {
    stack: deps.stackName,
    synthesizedAt: id.synthesizedAt,
    synthZoneData: deps.recorded.zoneDataVersion,
    runtimeZoneData: id.runtimeZoneData,
  });
  try {
    await deps.notifier.notifyZoneDrift(notification);
  } catch (error) {
    deps.metrics.global('NotificationFailures');
    deps.logger.error('notification-failed', {
      decision: 'outbox-failed',
      effect: 'notify:zone-data-drift',
      jobId: finding.jobId,
      error: describeError(error),
      hint: 'the notice stays owed; a sweep sends it again when its lease ends',
    });
    return false;
  }
  deps.metrics.global('NotificationsSent');
  await deps.ledger.confirmNotice(id, deps.clock());
  return true;
}
