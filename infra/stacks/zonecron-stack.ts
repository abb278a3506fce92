/**
 * The main stack of a zonecron installation (architecture §2): everything but the jobs'
 * schedules, which live in the shard stacks (`infra/stacks/job-shard-stack.ts`).
 */
import { Aws, CfnOutput, CfnRule, Fn, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { JobsConfig } from '../config/load-jobs.ts';
import { requiredEnvironment } from '../config/target-environment.ts';
import { CompletionTracking } from '../constructs/completion-tracking.ts';
import { ZonecronDashboard } from '../constructs/dashboard.ts';
import { DeadLetterQueue } from '../constructs/dead-letter-queue.ts';
import { DispatcherFunction } from '../constructs/dispatcher-function.ts';
import { FailureInsights } from '../constructs/failure-insights.ts';
import { LedgerTable } from '../constructs/ledger-table.ts';
import { OnCallAlarms } from '../constructs/on-call-alarms.ts';
import { OnCallTopic } from '../constructs/on-call-topic.ts';
import { RecorderFunction } from '../constructs/recorder-function.ts';
import { Scheduling } from '../constructs/scheduling.ts';
import { createJobsBundle } from '../packaging/jobs-bundle-file.ts';

/** Properties of {@link ZonecronStack}. */
export interface ZonecronStackProps extends StackProps {
  /** The validated jobs config (`loadJobsFile`). */
  readonly config: JobsConfig;
  /** When synth ran, recorded in the jobs bundle. */
  readonly synthTime: Date;
}

/**
 * Everything of an installation that does not grow with its jobs: the ledger, the dead-letter
 * queue, the dispatcher with its target grants, the schedule group with the sweep, the recorder
 * with its completion rules, the on-call topic, the fixed set of alarms, the Contributor
 * Insights rule and the dashboard.
 *
 * No account or region is hard-coded; `cdk deploy` takes them from the caller's credentials.
 * When the jobs pin the environment (`lambda`/`stepfunctions` targets, `alarms.topicArn`,
 * `environment:`), a template rule refuses a deploy elsewhere before anything is created.
 */
export class ZonecronStack extends Stack {
  readonly ledger: LedgerTable;
  readonly deadLetterQueue: DeadLetterQueue;
  readonly onCall: OnCallTopic;
  readonly dispatcher: DispatcherFunction;
  readonly scheduling: Scheduling;
  readonly recorder: RecorderFunction;
  readonly completion: CompletionTracking;
  readonly alarms: OnCallAlarms;
  readonly insights: FailureInsights;
  readonly dashboard: ZonecronDashboard;
  /** The rule that refuses a deploy to the wrong account or region; absent when any will do. */
  readonly environmentRule?: CfnRule;

  constructor(scope: Construct, id: string, props: ZonecronStackProps) {
    super(scope, id, {
      description: 'zonecron: time-zone-correct scheduled jobs on EventBridge Scheduler',
      ...props,
    });
    const { config } = props;
    const jobsBundle = createJobsBundle(config.jobs, { synthTime: props.synthTime });
    this.ledger = new LedgerTable(this, 'Ledger');
    this.deadLetterQueue = new DeadLetterQueue(this, 'DeadLetters');
    this.onCall = new OnCallTopic(this, 'OnCall', {
      ...(config.alarmTopicArn === undefined ? {} : { existingTopicArn: config.alarmTopicArn }),
      emails: config.alarmEmails,
    });
    this.dispatcher = new DispatcherFunction(this, 'Dispatcher', {
      jobsBundle,
      ledger: this.ledger,
      deadLetterQueue: this.deadLetterQueue,
      notifyTopic: this.onCall,
      retentionDays: config.retentionDays,
    });
    this.scheduling = new Scheduling(this, 'Schedules', {
      dispatcher: this.dispatcher,
      deadLetterQueue: this.deadLetterQueue,
    });
    this.recorder = new RecorderFunction(this, 'Recorder', {
      jobsBundle,
      ledger: this.ledger,
      deadLetterQueue: this.deadLetterQueue,
      notifyTopic: this.onCall,
    });
    this.completion = new CompletionTracking(this, 'Completion', {
      jobs: config.jobs,
      recorder: this.recorder,
      deadLetterQueue: this.deadLetterQueue,
    });
    this.alarms = new OnCallAlarms(this, 'Alarms', {
      dispatcher: this.dispatcher,
      recorder: this.recorder,
      scheduling: this.scheduling,
      deadLetterQueue: this.deadLetterQueue,
      topic: this.onCall,
    });
    this.insights = new FailureInsights(this, 'FailureInsights', {
      logGroup: this.dispatcher.logGroup,
    });
    this.dashboard = new ZonecronDashboard(this, 'Dashboard', {
      dispatcher: this.dispatcher,
      recorder: this.recorder,
      scheduling: this.scheduling,
      deadLetterQueue: this.deadLetterQueue,
      alarms: this.alarms,
      insights: this.insights,
    });
    const rule = environmentRule(this, config);
    if (rule) this.environmentRule = rule;
    this.outputs();
  }

  private outputs(): void {
    const output = (id: string, value: string, description: string) =>
      new CfnOutput(this, id, { value, description });
    output('LedgerTableName', this.ledger.tableName, 'The run ledger (DynamoDB)');
    output('DeadLetterQueueUrl', this.deadLetterQueue.queueUrl, 'Runs that did not happen');
    output('DispatcherFunctionName', this.dispatcher.functionName, 'Receives every tick');
    output('AlarmTopicArn', this.onCall.topicArn, 'Alarms and per-run notifications go here');
    output('ScheduleGroupName', this.scheduling.groupName, 'One schedule per job');
    output('DashboardName', this.dashboard.dashboardName, 'CloudWatch dashboard');
    output('RecorderFunctionName', this.recorder.functionName, 'Records how runs ended');
    output(
      'TargetDestinationPolicyArn',
      this.completion.destinationPolicy.managedPolicyArn,
      'Attach to the execution role of every lambda target',
    );
  }
}

/**
 * A template rule asserting the account and region the jobs pin (`requiredEnvironment`):
 * CloudFormation checks rules before it creates or updates any resource.
 */
function environmentRule(stack: Stack, config: JobsConfig): CfnRule | undefined {
  const { source } = requiredEnvironment({
    jobs: config.jobs,
    declared: config.environment,
    alarmTopicArn: config.alarmTopicArn,
  });
  if (source === undefined) return undefined;
  const { account, region } = source.environment;
  const why = `, because of ${source.from === 'environment:' ? 'the environment: setting' : source.from} in jobs.yaml (docs/deploy.md, "Targets in other accounts and regions")`;
  return new CfnRule(stack, 'DeployWhereTheTargetsAre', {
    assertions: [
      ...(account === undefined
        ? []
        : [
            {
              assert: Fn.conditionEquals(Aws.ACCOUNT_ID, account),
              assertDescription: `This stack must be deployed to account ${account}${why}`,
            },
          ]),
      ...(region === undefined
        ? []
        : [
            {
              assert: Fn.conditionEquals(Aws.REGION, region),
              assertDescription: `This stack must be deployed to region ${region}${why}`,
            },
          ]),
    ],
  });
}
