import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import {
  type GlobalMetricName,
  JOB_DIMENSION,
  METRICS_NAMESPACE,
  type RunMetricName,
  STACK_DIMENSION,
} from '#shared/metrics.ts';

export type { GlobalMetricName, RunMetricName };

/**
 * One of the stack's own metrics as the functions publish it (`functions/shared/metrics.ts`):
 * namespace `zonecron`, exactly the dimension `{Stack}`, summed per minute unless told
 * otherwise. Every job feeds the run metrics; no job adds one.
 *
 * A CloudWatch alarm matches only a metric with exactly its dimensions, so the functions clear
 * Powertools' default `service` dimension and this must not add it.
 */
export function stackMetric(
  metricName: RunMetricName | GlobalMetricName,
  stackName: string,
  props: cloudwatch.MetricOptions = {},
): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { [STACK_DIMENSION]: stackName },
    period: Duration.minutes(1),
    statistic: 'Sum',
    ...props,
  });
}

/**
 * A run metric of one job with `alarm.dedicated: true`: dimensions exactly `{Stack, JobId}`.
 * Other jobs publish no such metric.
 */
export function dedicatedJobMetric(
  metricName: RunMetricName,
  stackName: string,
  jobId: string,
  props: cloudwatch.MetricOptions = {},
): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { [STACK_DIMENSION]: stackName, [JOB_DIMENSION]: jobId },
    period: Duration.minutes(1),
    statistic: 'Sum',
    ...props,
  });
}
