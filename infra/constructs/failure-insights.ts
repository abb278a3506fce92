import { Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

/** The dispatcher's decisions that mean a run did not go as planned. */
export const FAILURE_DECISIONS = [
  'delivery-failed',
  'dead-lettered',
  'missed',
  'stuck',
  'late',
] as const;

/** Properties of {@link FailureInsights}. */
export interface FailureInsightsProps {
  /** The dispatcher's log group: one JSON line per decision, with `decision` and `jobId`. */
  readonly logGroup: logs.ILogGroup;
}

/**
 * A CloudWatch Contributor Insights rule over the dispatcher's decision lines: which jobs had
 * the most failure decisions (`FAILURE_DECISIONS`), per minute, for the dashboard's top-jobs
 * graph. Per-job numbers come from the logs the dispatcher writes anyway, so they cost no
 * custom metric per job; the rule costs a fixed monthly fee plus a fee per matched log line
 * (`infra/app/cost-estimate.ts`).
 *
 * Its name starts with the stack name: rule names are unique per account and region.
 */
export class FailureInsights extends Construct {
  /** The rule. */
  readonly rule: cloudwatch.CfnInsightRule;

  constructor(scope: Construct, id: string, props: FailureInsightsProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.rule = new cloudwatch.CfnInsightRule(this, 'Rule', {
      ruleName: `${stack.stackName}-failing-jobs`,
      ruleState: 'ENABLED',
      ruleBody: stack.toJsonString({
        Schema: { Name: 'CloudWatchLogRule', Version: 1 },
        LogGroupNames: [props.logGroup.logGroupName],
        LogFormat: 'JSON',
        Contribution: {
          Keys: ['$.jobId'],
          Filters: [{ Match: '$.decision', In: [...FAILURE_DECISIONS] }],
        },
        AggregateOn: 'Count',
      }),
    });
  }

  /** The rule's name, for a dashboard widget. */
  get ruleName(): string {
    return this.rule.ruleName;
  }
}
