import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { LedgerError } from './errors.ts';
import { LEDGER_OPEN_SHARDS, LEDGER_PARTITION_KEY, LEDGER_TTL_ATTRIBUTE } from './ledger-table.ts';

/**
 * Where a run is in its life (docs/architecture.md, "The run lifecycle").
 *
 * `claimed`, `delivery-failed` and a `dispatched` run whose target reports completion are
 * open: someone still has to act on them. The rest are terminal.
 */
export type RunStatus =
  | 'claimed'
  | 'dispatched'
  | 'delivery-failed'
  | 'succeeded'
  | 'failed'
  | 'skipped';

const RUN_STATUSES: ReadonlySet<string> = new Set<RunStatus>([
  'claimed',
  'dispatched',
  'delivery-failed',
  'succeeded',
  'failed',
  'skipped',
]);

/** Why a run was skipped: the one recorded reason every skipped run carries. */
export type SkipReason =
  | 'overlap'
  | 'paused'
  | 'catch-up-none'
  | 'catch-up-latest'
  | 'max-runs'
  | 'outside-window';

/** How a run came to be decided. */
export type RunOrigin = 'tick' | 'catch-up' | 'sweep' | 'retry' | 'manual' | 'redrive' | 'backfill';

/**
 * What on-call is told about, once per run and signal.
 *
 * - `missed`: due, and no tick of its own decided it; a catch-up delivered it late or skipped it.
 * - `late`: delivered by its own tick, but later than the job's grace.
 * - `stuck`: delivered to a target that reports completion, and not finished after maxRuntime.
 * - `dead-lettered`: its delivery attempts ran out; it is in the dead-letter queue.
 * - `run-failed`: the target ran it and reported failure.
 * - `overlap`: skipped for `concurrency: forbid`, the second run in a row of one incident (the
 *   runs skipped while the job's slot stayed held); the incident's later skips raise nothing.
 * - `deadline-missed`: a run of a job with a `deadline` was not done by it (docs/semantics.md,
 *   "Deadlines"): not ended successfully (lambda, stepfunctions) or not delivered (the others).
 */
export type Signal =
  | 'missed'
  | 'late'
  | 'stuck'
  | 'dead-lettered'
  | 'run-failed'
  | 'overlap'
  | 'deadline-missed';

/**
 * A side effect a transition owes the world, kept on the run's item until it is done: a
 * notification per signal, or the one dead-letter message.
 */
export type OutboxEffect = `notify:${Signal}` | 'dead-letter';

/** One run's ledger item, decoded. */
export interface RunItem {
  readonly key: string;
  readonly jobId: string;
  /** UTC ISO instant with milliseconds. */
  readonly at: string;
  readonly nominal: string;
  readonly dst: string;
  readonly status: RunStatus;
  /** Delivery attempts ever made; never reset, so `attempt` numbers a delivery uniquely. */
  readonly attempts: number;
  /**
   * Attempts in the current round: a round has `retry.maxAttempts` of them, and an operator's
   * redrive starts a new one, of one attempt.
   */
  readonly roundAttempts: number;
  /** Number of redrives. */
  readonly generation: number;
  readonly manual: boolean;
  readonly origin?: RunOrigin;
  /**
   * What the last claim took the run over from: `new`, `delivery-failed` (a retry), `claimed`
   * (a holder whose lease ran out: it may have delivered the run already) or `skipped`.
   */
  readonly previousStatus?: RunStatus | 'new';
  /** The target ARN the run was claimed for. */
  readonly target?: string;
  readonly leaseUntilEpochMs?: number;
  /**
   * When the run must be done by (its job's `deadline`), set by the claim of a run the
   * dispatcher decided to deliver (a tick, a catch-up, the sweep); absent on an operator's runs
   * and from a redrive on: those raise no `deadline-missed`.
   */
  readonly deadlineAtEpochMs?: number;
  /** `delivery-failed`: when the next attempt is due (the sweep may look earlier, at the deadline). */
  readonly retryAtEpochMs?: number;
  readonly dispatchedAt?: string;
  readonly deliveryId?: string;
  readonly lastError?: string;
  readonly failure?: 'delivery' | 'execution';
  readonly skipReason?: SkipReason;
  readonly completedAt?: string;
  readonly startedAt?: string;
  readonly completionId?: string;
  readonly deadLetteredAt?: string;
  /** With `overlap` raised: the first run skipped in its incident, UTC ISO. */
  readonly overlapSince?: string;
  /**
   * The SHA-256 (hex) of the delivery secret of each claim of the run (architecture §5): a
   * completion report must bring back a secret whose hash is here. Absent before any claim.
   */
  readonly secretHashes?: readonly string[];
  readonly signals: readonly Signal[];
  readonly outbox: readonly OutboxEffect[];
  readonly outboxLeaseUntilEpochMs?: number;
  /** On the one run of a gap that carries the gap's missed notification: what the gap held. */
  readonly incident?: MissedIncident;
  readonly openShard?: string;
  readonly checkAtEpochMs?: number;
  readonly ttlEpochSec?: number;
}

/** A job's own item: its watermark, pause, catch-up lease and running slot. */
/**
 * The runs of one gap that were missed, as its single notification tells them: carried by the
 * gap's newest missed run (docs/semantics.md, "Signals and notifications").
 */
export interface MissedIncident {
  /** The run item that carries the notification. */
  readonly carrierKey: string;
  /** Missed runs in the gap (delivered late or skipped). */
  readonly runs: number;
  /** UTC ISO instants of the first and the last of them. */
  readonly first: string;
  readonly last: string;
  /** How many of them were delivered late; the others were skipped. */
  readonly delivered: number;
}

export interface JobStateItem {
  readonly jobId: string;
  /** Every run at or before it has been decided (or is being decided). */
  readonly watermarkAt?: string;
  /** The first run this stack ever decided for the job: earlier runs were never expected. */
  readonly sinceAt?: string;
  /** The fingerprint of the schedule W was decided under (`scheduleIdOf`). */
  readonly scheduleId?: string;
  /** When the first sweep of a deploy that no longer lists the job ended it. */
  readonly removedAt?: string;
  readonly pausedAt?: string;
  /** Who paused it: an operator's name, or `jobs.yaml` for `enabled: false`. */
  readonly pausedBy?: string;
  readonly pauseReason?: string;
  readonly pausedUntil?: string;
  readonly lastPauseFrom?: string;
  readonly lastPauseTo?: string;
  readonly catchupLeaseUntilEpochMs?: number;
  /**
   * Runs caught up since a tick last delivered its own run on time: a gap's policy budget
   * (`catchup.maxRuns`) is shared by every catch-up that decides part of it.
   */
  readonly gapCaughtUp?: number;
  /**
   * The run the fast path's tick last moved W onto (`swapWatermark`): while W still stands
   * there, a run at W with no item is that tick's own, its claim not written yet (it died, or is
   * still claiming).
   */
  readonly swappedAt?: string;
  readonly runningKey?: string;
  readonly runningUntilEpochMs?: number;
  /**
   * The last overlap incident: runs skipped since the slot was last taken by a run that did not
   * hold it. Its first run's instant (UTC ISO), how many were skipped, and the keys of the
   * first two (the second raises the `overlap` notification).
   */
  readonly overlapSince?: string;
  readonly overlapSkips?: number;
  readonly overlapFirstKey?: string;
  readonly overlapSecondKey?: string;
}

/** A stored item that does not have the shape its key promises. */
export class LedgerItemError extends LedgerError {
  readonly key: string;
  readonly attribute: string;
  constructor(key: string, attribute: string, problem: string) {
    super(`ledger item '${key}': attribute '${attribute}' ${problem}`);
    this.key = key;
    this.attribute = attribute;
  }
}

/** A DynamoDB item in the low-level attribute-value form. */
export type Item = Record<string, AttributeValue>;

/** Prefix of a job state item's partition key. */
export const JOB_STATE_KEY_PREFIX = 'job#';

/** The partition key of a job's state item. */
export function jobStateKey(jobId: string): string {
  return `${JOB_STATE_KEY_PREFIX}${jobId}`;
}

/** The partition key of the sweep's cursor item. */
export const SWEEP_CURSOR_KEY = 'sweep#cursor';

/**
 * The `byOpen` partition a run's item goes to: one of `LEDGER_OPEN_SHARDS`, from the run key's
 * first hex digits, so the same run always lands in the same shard.
 *
 * @example
 * openShardOf('9f86d081…') //=> 'open#9'
 */
export function openShardOf(key: string): string {
  const value = Number.parseInt(key.slice(0, 4), 16);
  const shard = Number.isNaN(value) ? 0 : value % LEDGER_OPEN_SHARDS;
  return `open#${shard}`;
}

/** Every `byOpen` partition key value, for the sweep's queries. */
export function openShards(): string[] {
  return Array.from({ length: LEDGER_OPEN_SHARDS }, (_, i) => `open#${i}`);
}

/** Attribute-value constructors. */
export const av = {
  s: (value: string): AttributeValue => ({ S: value }),
  n: (value: number): AttributeValue => ({ N: String(value) }),
  b: (value: boolean): AttributeValue => ({ BOOL: value }),
  ss: (values: readonly string[]): AttributeValue => ({ SS: [...values] }),
};

/** Reads the item's attributes by kind, strictly: a wrong kind is an error. */
class Reader {
  constructor(
    private readonly item: Item,
    private readonly key: string,
  ) {}
  optSet(name: string): string[] | undefined {
    return this.item[name] === undefined ? undefined : this.set(name);
  }
  optS(name: string): string | undefined {
    const v = this.item[name];
    if (v === undefined) return undefined;
    if (!('S' in v) || v.S === undefined)
      throw new LedgerItemError(this.key, name, 'is not a string');
    return v.S;
  }
  s(name: string): string {
    const v = this.optS(name);
    if (v === undefined) throw new LedgerItemError(this.key, name, 'is missing');
    return v;
  }
  optN(name: string): number | undefined {
    const v = this.item[name];
    if (v === undefined) return undefined;
    const n = 'N' in v && v.N !== undefined ? Number(v.N) : Number.NaN;
    if (!Number.isFinite(n)) throw new LedgerItemError(this.key, name, 'is not a number');
    return n;
  }
  n(name: string): number {
    const v = this.optN(name);
    if (v === undefined) throw new LedgerItemError(this.key, name, 'is missing');
    return v;
  }
  bool(name: string): boolean {
    const v = this.item[name];
    if (v === undefined) return false;
    if (!('BOOL' in v) || v.BOOL === undefined) {
      throw new LedgerItemError(this.key, name, 'is not a boolean');
    }
    return v.BOOL;
  }
  optBool(name: string): true | undefined {
    return this.bool(name) || undefined;
  }
  set(name: string): string[] {
    const v = this.item[name];
    if (v === undefined) return [];
    if (!('SS' in v) || v.SS === undefined) {
      throw new LedgerItemError(this.key, name, 'is not a string set');
    }
    return [...v.SS].sort();
  }
  oneOf<T extends string>(name: string, allowed: ReadonlySet<string>): T {
    const v = this.s(name);
    if (!allowed.has(v)) {
      throw new LedgerItemError(this.key, name, `is '${v}' (allowed ${[...allowed].join(', ')})`);
    }
    return v as T;
  }
}

/** Copies the defined entries only, so optional fields stay absent (not `undefined`). */
function defined<T extends object>(fields: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };
}

/**
 * Decodes a stored run item; the one codec of the run item for every reader.
 *
 * Strict: a missing key, job, instant, status or attempt count, or an unknown status, is a
 * `LedgerItemError`, never a default.
 *
 * @example
 * decodeRun({ pk: { S: '9f…' }, jobId: { S: 'daily' }, at: { S: '2023-03-26T01:30:00.000Z' },
 *   nominal: { S: '2023-03-26T02:30' }, dst: { S: 'gap' }, status: { S: 'claimed' },
 *   attempts: { N: '1' } }).status
 * //=> 'claimed'
 */
export function decodeRun(item: Item): RunItem {
  const pk = item[LEDGER_PARTITION_KEY];
  const key = pk && 'S' in pk && pk.S ? pk.S : '(no key)';
  const r = new Reader(item, key);
  r.s(LEDGER_PARTITION_KEY);
  return {
    key,
    jobId: r.s('jobId'),
    at: r.s('at'),
    nominal: r.optS('nominal') ?? '',
    dst: r.optS('dst') ?? 'none',
    status: r.oneOf<RunStatus>('status', RUN_STATUSES),
    attempts: r.n('attempts'),
    roundAttempts: r.optN('roundAttempts') ?? 0,
    generation: r.optN('generation') ?? 0,
    manual: r.bool('manual'),
    signals: r.set('signals') as Signal[],
    outbox: r.set('outbox') as OutboxEffect[],
    ...defined({
      origin: r.optS('origin') as RunOrigin | undefined,
      previousStatus: r.optS('previousStatus') as RunStatus | 'new' | undefined,
      target: r.optS('target'),
      leaseUntilEpochMs: r.optN('leaseUntilEpochMs'),
      deadlineAtEpochMs: r.optN('deadlineAtEpochMs'),
      retryAtEpochMs: r.optN('retryAtEpochMs'),
      dispatchedAt: r.optS('dispatchedAt'),
      deliveryId: r.optS('deliveryId'),
      lastError: r.optS('lastError'),
      failure: r.optS('failure') as 'delivery' | 'execution' | undefined,
      skipReason: r.optS('skipReason') as SkipReason | undefined,
      completedAt: r.optS('completedAt'),
      startedAt: r.optS('startedAt'),
      completionId: r.optS('completionId'),
      deadLetteredAt: r.optS('deadLetteredAt'),
      overlapSince: r.optS('overlapSince'),
      secretHashes: r.optSet('secretHashes'),
      outboxLeaseUntilEpochMs: r.optN('outboxLeaseUntilEpochMs'),
      openShard: r.optS('openShard'),
      checkAtEpochMs: r.optN('checkAtEpochMs'),
      ttlEpochSec: r.optN(LEDGER_TTL_ATTRIBUTE),
      incident: decodeIncident(r.optS('incident')),
    }),
  };
}

function decodeIncident(text: string | undefined): MissedIncident | undefined {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as MissedIncident;
  } catch {
    return undefined;
  }
}

/**
 * Decodes a job state item (`job#<jobId>`).
 *
 * @example
 * decodeJobState({ pk: { S: 'job#daily' }, watermarkAt: { S: '2023-03-26T01:30:00.000Z' } })
 * //=> { jobId: 'daily', watermarkAt: '2023-03-26T01:30:00.000Z' }
 */
export function decodeJobState(item: Item): JobStateItem {
  const r = new Reader(item, '(job state)');
  const pk = r.s(LEDGER_PARTITION_KEY);
  if (!pk.startsWith(JOB_STATE_KEY_PREFIX)) {
    throw new LedgerItemError(
      pk,
      LEDGER_PARTITION_KEY,
      `does not start with '${JOB_STATE_KEY_PREFIX}'`,
    );
  }
  return {
    jobId: pk.slice(JOB_STATE_KEY_PREFIX.length),
    ...defined({
      watermarkAt: r.optS('watermarkAt'),
      sinceAt: r.optS('sinceAt'),
      scheduleId: r.optS('scheduleId'),
      removedAt: r.optS('removedAt'),
      pausedAt: r.optS('pausedAt'),
      pausedBy: r.optS('pausedBy'),
      pauseReason: r.optS('pauseReason'),
      pausedUntil: r.optS('pausedUntil'),
      lastPauseFrom: r.optS('lastPauseFrom'),
      lastPauseTo: r.optS('lastPauseTo'),
      catchupLeaseUntilEpochMs: r.optN('catchupLeaseUntilEpochMs'),
      gapCaughtUp: r.optN('gapCaughtUp'),
      swappedAt: r.optS('swappedAt'),
      runningKey: r.optS('runningKey'),
      runningUntilEpochMs: r.optN('runningUntilEpochMs'),
      overlapSince: r.optS('overlapSince'),
      overlapSkips: r.optN('overlapSkips'),
      overlapFirstKey: r.optS('overlapFirstKey'),
      overlapSecondKey: r.optS('overlapSecondKey'),
    }),
  };
}

/**
 * The run's deadline when it has one and has not raised `deadline-missed` yet: what the
 * dispatcher's sweep and the recorder both ask before raising it.
 *
 * @example
 * pendingDeadline({ deadlineAtEpochMs: 1_800_000_000_000, signals: [] }) //=> 1800000000000
 * pendingDeadline({ deadlineAtEpochMs: 1_800_000_000_000, signals: ['deadline-missed'] }) //=> undefined
 */
export function pendingDeadline(
  item: Pick<RunItem, 'deadlineAtEpochMs' | 'signals'>,
): number | undefined {
  return item.signals.includes('deadline-missed') ? undefined : item.deadlineAtEpochMs;
}

/** True for statuses after which only an operator acts on the run again. */
export function isTerminal(status: RunStatus): boolean {
  return status === 'succeeded' || status === 'failed' || status === 'skipped';
}

/**
 * True when `at` lies in the job's last (ended) pause, from when it was paused up to, not
 * including, when it was resumed: a run due at the very instant of the resume is live.
 *
 * @example
 * inLastPause({ jobId: 'j', lastPauseFrom: '2023-06-01T10:20:00.000Z',
 *   lastPauseTo: '2023-06-01T10:50:00.000Z' }, new Date('2023-06-01T10:45:00Z')) //=> true
 */
export function inLastPause(state: JobStateItem, at: Date): boolean {
  if (!state.lastPauseFrom || !state.lastPauseTo) return false;
  const ms = at.getTime();
  return ms >= Date.parse(state.lastPauseFrom) && ms < Date.parse(state.lastPauseTo);
}

/** Prefix of a zone-drift notice's partition key. */
export const ZONE_DRIFT_KEY_PREFIX = 'zone-drift#';

/**
 * The partition key of the notice that one job's zone data drifted, once per deploy (synth
 * time), runtime zone data and job: `zone-drift#<synthesizedAt>#<runtime tz>#<jobId>`.
 *
 * @example
 * zoneDriftKey('2026-11-30T15:00:00.000Z', '2026d', 'nightly')
 * //=> 'zone-drift#2026-11-30T15:00:00.000Z#2026d#nightly'
 */
export function zoneDriftKey(
  synthesizedAt: string,
  runtimeZoneData: string,
  jobId: string,
): string {
  return `${ZONE_DRIFT_KEY_PREFIX}${synthesizedAt}#${runtimeZoneData}#${jobId}`;
}

/**
 * The on-call notice of one job whose zone data drifted (`zone-drift#…`): who detected it,
 * what it found, and whether the notification went out.
 */
export interface ZoneDriftItem {
  readonly synthesizedAt: string;
  readonly runtimeZoneData: string;
  readonly jobId: string;
  readonly timezone: string;
  readonly synthZoneData: string;
  /** UTC ISO instant where synth's and the runtime's answers first differ. */
  readonly firstDisagreementAt: string;
  /** When a container first claimed the notice. */
  readonly detectedAt: string;
  /** The claim's holder may send until then; after it, anyone may claim again. */
  readonly noticeLeaseUntilEpochMs?: number;
  /** When the notification went out: the notice is done. */
  readonly notifiedAt?: string;
  readonly ttlEpochSec?: number;
}

/**
 * Decodes a zone-drift notice item (`zone-drift#<synthesizedAt>#<runtime tz>#<jobId>`).
 *
 * @example
 * decodeZoneDrift({ pk: { S: 'zone-drift#2026-11-30T15:00:00.000Z#2026d#nightly' },
 *   timezone: { S: 'America/Vancouver' }, synthZoneData: { S: '2025c' },
 *   firstDisagreementAt: { S: '2026-11-01T09:00:00.000Z' },
 *   detectedAt: { S: '2026-11-30T15:05:00.000Z' } }).jobId
 * //=> 'nightly'
 */
export function decodeZoneDrift(item: Item): ZoneDriftItem {
  const r = new Reader(item, '(zone drift)');
  const pk = r.s(LEDGER_PARTITION_KEY);
  const parts = pk.startsWith(ZONE_DRIFT_KEY_PREFIX)
    ? pk.slice(ZONE_DRIFT_KEY_PREFIX.length).split('#')
    : [];
  const [synthesizedAt, runtimeZoneData, jobId] = parts;
  if (parts.length !== 3 || !synthesizedAt || !runtimeZoneData || !jobId) {
    throw new LedgerItemError(
      pk,
      LEDGER_PARTITION_KEY,
      `is not '${ZONE_DRIFT_KEY_PREFIX}<synthesizedAt>#<runtime tz>#<jobId>'`,
    );
  }
  return {
    synthesizedAt,
    runtimeZoneData,
    jobId,
    timezone: r.s('timezone'),
    synthZoneData: r.s('synthZoneData'),
    firstDisagreementAt: r.s('firstDisagreementAt'),
    detectedAt: r.s('detectedAt'),
    ...defined({
      noticeLeaseUntilEpochMs: r.optN('noticeLeaseUntilEpochMs'),
      notifiedAt: r.optS('notifiedAt'),
      ttlEpochSec: r.optN(LEDGER_TTL_ATTRIBUTE),
    }),
  };
}
