import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/** The CloudWatch namespace of every zonecron metric. */
export const METRICS_NAMESPACE = 'zonecron';

/** The per-job dimension's name. */
export const JOB_DIMENSION = 'jobId';

/** Metrics that carry the `jobId` dimension (architecture §8). */
export type JobMetricName =
  | 'Dispatched'
  | 'DuplicatesSuppressed'
  | 'DispatchLagSeconds'
  | 'DeliveryFailures'
  | 'DeadLettered'
  | 'CaughtUp'
  | 'CatchupDropped'
  | 'SkippedOverlap'
  | 'MissedRuns'
  | 'LateRuns'
  | 'StuckRuns'
  | 'RunSucceeded'
  | 'RunFailed'
  | 'RunDurationSeconds';

/** Metrics without a job dimension. */
export type GlobalMetricName = 'MalformedEvents' | 'UnknownJobEvents' | 'DisabledJobEvents';

const SECONDS_METRICS: ReadonlySet<string> = new Set(['DispatchLagSeconds', 'RunDurationSeconds']);

/**
 * The metrics surface the Lambda cores use. Values are buffered until `flush()`.
 *
 * Counts are summed per (job, name) within one flush; `...Seconds` metrics keep every value.
 */
export interface AppMetrics {
  /** Adds to a per-job metric. */
  job(jobId: string, name: JobMetricName, value?: number): void;
  /** Adds to a metric without a job dimension. */
  global(name: GlobalMetricName, value?: number): void;
  /** Emits everything buffered (one EMF document per job) and empties the buffer. */
  flush(): void;
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

const GLOBAL = '';

/**
 * Powertools EMF metrics with exactly the `jobId` dimension (or none).
 *
 * Powertools adds a `service` dimension by default; it is cleared here, because the stack's
 * per-job alarms match the dimension set `{jobId}` exactly.
 *
 * @example
 * const metrics = createMetrics();
 * metrics.job('daily', 'Dispatched');
 * metrics.flush(); // one line: {"_aws":{"CloudWatchMetrics":[{"Namespace":"zonecron","Dimensions":[["jobId"]],...
 */
export function createMetrics(): AppMetrics {
  const buffer: Buffer = new Map();
  const emf = new Metrics({ namespace: METRICS_NAMESPACE });
  emf.clearDefaultDimensions();
  return {
    job(jobId, name, value = 1) {
      add(buffer, jobId, name, value);
    },
    global(name, value = 1) {
      add(buffer, GLOBAL, name, value);
    },
    flush() {
      for (const [group, byName] of buffer) {
        if (group !== GLOBAL) emf.addDimension(JOB_DIMENSION, group);
        for (const [name, values] of byName) {
          const unit = SECONDS_METRICS.has(name) ? MetricUnit.Seconds : MetricUnit.Count;
          for (const value of values) emf.addMetric(name, unit, value);
        }
        if (group === GLOBAL) {
          // Powertools writes `Dimensions: []` for a metric without dimensions; the EMF spec's
          // explicit form of "no dimensions" is one empty dimension set.
          const doc = emf.serializeMetrics();
          const directive = doc._aws.CloudWatchMetrics[0] as { Dimensions: string[][] } | undefined;
          if (directive && directive.Dimensions.length === 0) directive.Dimensions = [[]];
          process.stdout.write(`${JSON.stringify(doc)}\n`);
          emf.clearMetrics();
          emf.clearDimensions();
        } else {
          emf.publishStoredMetrics();
        }
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
  job(jobId: string, name: JobMetricName, value = 1): void {
    this.#push(`${jobId}/${name}`, value);
  }
  global(name: GlobalMetricName, value = 1): void {
    this.#push(name, value);
  }
  flush(): void {
    this.flushes++;
  }
  /** The sum of a metric: `count('daily', 'Dispatched')` or `count('MalformedEvents')`. */
  count(jobIdOrName: string, name?: JobMetricName): number {
    const key = name ? `${jobIdOrName}/${name}` : jobIdOrName;
    return (this.values.get(key) ?? []).reduce((a, b) => a + b, 0);
  }
  /** The sum of a per-job metric over all jobs. */
  total(name: JobMetricName): number {
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
