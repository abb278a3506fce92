import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import {
  JOB_DIMENSION,
  METRICS_NAMESPACE,
  type RunMetricName,
  STACK_DIMENSION,
} from '../../functions/shared/metrics.ts';

export type { RunMetricName };

/**
 * One per-job metric as the functions emit it (`functions/shared/metrics.ts`): namespace
 * `zonecron`, exactly one dimension, `jobId`, summed per minute unless told otherwise.
 *
 * A CloudWatch alarm matches only a metric with exactly its dimensions, so the functions
 * clear Powertools' default `service` dimension and this must not add it.
 */
export function jobMetric(
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

/**
 * A CloudWatch search over one per-job metric of every job, for dashboards: new jobs show up
 * without a redeploy of the dashboard, and 500 jobs do not hit the per-graph metric limit.
 */
export function everyJobSearch(
  metricName: RunMetricName,
  statistic: string,
  period: Duration,
  label: string,
): cloudwatch.MathExpression {
  return new cloudwatch.MathExpression({
    expression: `SEARCH('{${METRICS_NAMESPACE},${JOB_DIMENSION}} MetricName="${metricName}"', '${statistic}', ${period.toSeconds()})`,
    usingMetrics: {},
    label,
    period,
  });
}
