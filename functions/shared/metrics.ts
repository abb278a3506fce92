import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/** The CloudWatch namespace of every zonecron metric. */
export const METRICS_NAMESPACE = 'zonecron';

/**
 * The dimension every zonecron metric carries: the stack's name.
 *
 * Two stacks in one account publish to the same namespace; the dimension keeps their
 * metrics, alarms and dashboards apart.
 */
export const STACK_DIMENSION = 'Stack';

/** The second dimension of a job's own metrics (jobs with `alarm.dedicated: true` only). */
export const JOB_DIMENSION = 'JobId';

/**
 * Metrics about runs (docs/architecture.md, "Metrics and logs").
 *
 * Published per stack (`{Stack}`); a job with `alarm.dedicated: true` also gets its own copy
 * (`{Stack, JobId}`). No other job adds a metric, so the metric count, and the bill, do not
 * grow with the number of jobs.
 */
export type RunMetricName =
  | 'Dispatched'
  | 'DuplicatesSuppressed'
  | 'DispatchLagSeconds'
  | 'DeliveryFailures'
  | 'DeadLettered'
  | 'CaughtUp'
  | 'CatchupDropped'
  | 'SkippedOverlap'
  | 'SkippedPaused'
  | 'MissedRuns'
  | 'LateRuns'
  | 'StuckRuns'
  | 'DeadlineMissedRuns'
  | 'Redelivered'
  | 'RunSucceeded'
  | 'RunFailed'
  | 'RunDurationSeconds';

/** Metrics about the machinery rather than a run; `{Stack}` only. */
export type GlobalMetricName =
  | 'MalformedEvents'
  | 'ForgedCompletions'
  | 'UnknownJobEvents'
  | 'DisabledJobEvents'
  | 'RejectedTicks'
  | 'NotificationsSent'
  | 'NotificationFailures'
  | 'ZoneDataDrift';

const SECONDS_METRICS: ReadonlySet<string> = new Set(['DispatchLagSeconds', 'RunDurationSeconds']);

/**
 * The metrics surface the Lambda cores use. Values are buffered until `flush()`.
 *
 * Counts are summed per name within one flush; `...Seconds` metrics keep every value.
 */
export interface AppMetrics {
  /** Adds to a run metric of the job's stack (and of the job itself when it is dedicated). */
  job(jobId: string, name: RunMetricName, value?: number): void;
  /** Adds to a metric of the stack's machinery. */
  global(name: GlobalMetricName, value?: number): void;
  /** Emits everything buffered and empties the buffer. */
  flush(): void;
}

/**
 * What metrics read of the configured jobs: whether a job has `alarm.dedicated: true`.
 *
 * Stated here rather than imported, so the plumbing knows nothing of jobs
 * (`functions/jobs/`): the jobs bundle's `JobCatalog` is one.
 */
export interface DedicatedJobs {
  get(id: string): { readonly alarm: { readonly dedicated: boolean } } | undefined;
}

/** What {@link createMetrics} needs to know. */
export interface MetricsOptions {
  /** The `Stack` dimension's value. */
  readonly stackName: string;
  /**
   * The configured jobs: those with `alarm.dedicated: true` publish their own copy of each run
   * metric. @default none
   */
  readonly jobs?: DedicatedJobs;
}

type Buffer = Map<string, Map<string, number[]>>;

function add(buffer: Buffer, group: string, name: string, value: number) {
  let byName = buffer.get(group);
  if (!byName) {
    byName = new Map();
    buffer.set(group, byName);
  }
  const values = byName.get(name);
  if (!values) byName.set(name, [value]);
  else if (SECONDS_METRICS.has(name)) values.push(value);
  else values[0] = (values[0] ?? 0) + value;
}

/** The buffer group of the stack-wide copy; a dedicated job's own copy is grouped by its id. */
const STACK_GROUP = '';

/**
 * Powertools EMF metrics with the dimension sets `{Stack}` and, for dedicated jobs,
 * `{Stack, JobId}`.
 *
 * Powertools adds a `service` dimension by default; it is cleared here, because an alarm
 * matches only a metric with exactly its dimensions.
 *
 * @example
 * const metrics = createMetrics({ stackName: 'Zonecron' });
 * metrics.job('daily', 'Dispatched');
 * metrics.flush(); // one line: {"_aws":{"CloudWatchMetrics":[{"Namespace":"zonecron","Dimensions":[["Stack"]],...
 */
export function createMetrics(options: MetricsOptions): AppMetrics {
  const dedicated = (jobId: string) => options.jobs?.get(jobId)?.alarm.dedicated === true;
  const buffer: Buffer = new Map();
  const emf = new Metrics({ namespace: METRICS_NAMESPACE });
  emf.clearDefaultDimensions();
  return {
    job(jobId, name, value = 1) {
      add(buffer, STACK_GROUP, name, value);
      if (dedicated(jobId)) add(buffer, jobId, name, value);
    },
    global(name, value = 1) {
      add(buffer, STACK_GROUP, name, value);
    },
    flush() {
      for (const [group, byName] of buffer) {
        emf.addDimension(STACK_DIMENSION, options.stackName);
        if (group !== STACK_GROUP) emf.addDimension(JOB_DIMENSION, group);
        for (const [name, values] of byName) {
          const unit = SECONDS_METRICS.has(name) ? MetricUnit.Seconds : MetricUnit.Count;
          for (const value of values) emf.addMetric(name, unit, value);
        }
        emf.publishStoredMetrics();
      }
      buffer.clear();
    },
  };
}

/** An {@link AppMetrics} that sums what was emitted, for tests and the CLI simulation. */
export class RecordingMetrics implements AppMetrics {
  /** Every value ever added, by `jobId/name` (or `name` for global metrics). */
  readonly values = new Map<string, number[]>();
  flushes = 0;
  job(jobId: string, name: RunMetricName, value = 1): void {
    this.#push(`${jobId}/${name}`, value);
  }
  global(name: GlobalMetricName, value = 1): void {
    this.#push(name, value);
  }
  flush(): void {
    this.flushes++;
  }
  /** The sum of a metric: `count('daily', 'Dispatched')` or `count('MalformedEvents')`. */
  count(jobIdOrName: string, name?: RunMetricName): number {
    const key = name ? `${jobIdOrName}/${name}` : jobIdOrName;
    return (this.values.get(key) ?? []).reduce((a, b) => a + b, 0);
  }
  /** The sum of a run metric over all jobs. */
  total(name: RunMetricName): number {
    let sum = 0;
    for (const [key, values] of this.values) {
      if (key.endsWith(`/${name}`)) sum += values.reduce((a, b) => a + b, 0);
    }
    return sum;
  }
  #push(key: string, value: number) {
    const list = this.values.get(key);
    if (list) list.push(value);
    else this.values.set(key, [value]);
  }
}
