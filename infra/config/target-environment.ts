/**
 * Where a stack must be deployed for its jobs to work end to end.
 *
 * zonecron learns how a `lambda` run ended from the target function's asynchronous invoke
 * config, which CloudFormation can only create in the stack's own account and region, and how a
 * `stepfunctions` run ended from status-change events, which EventBridge delivers only to the
 * default bus of the state machine's own account and region. CloudWatch alarms notify only a
 * topic in their own region. So those targets (and `alarms.topicArn`) pin the stack's
 * environment; SQS, SNS and EventBridge targets may live anywhere their resource policy allows.
 *
 * The environment is known from the file, never from the caller's credentials: `environment:`
 * if the file says it, else what the pinned targets agree on. `zonecron validate` and `cdk
 * synth` therefore judge a file the same way on any machine, and the stack's template carries
 * the result as a CloudFormation rule that refuses a deploy elsewhere before anything is
 * created.
 */
import type { JobDefinition } from '#jobs/job.ts';
import { arnParts } from '#jobs/target-arn.ts';

/** The account and region a stack is deployed to, each as far as it is known. */
export interface StackEnvironment {
  readonly account?: string;
  readonly region?: string;
}

/** Why the environment is what it is, for messages: a job, the topic, or the file. */
export interface EnvironmentSource {
  readonly environment: StackEnvironment;
  /** `environment:`, `job 'x' (lambda target)` or `alarms.topicArn`. */
  readonly from: string;
}

/** Target types whose runs can only be tracked in the stack's own account and region. */
export const HOME_BOUND_TARGET_TYPES: ReadonlySet<string> = new Set(['lambda', 'stepfunctions']);

/** One thing that is not where the stack is. */
export interface EnvironmentConflict {
  readonly job?: JobDefinition;
  /** True when the conflict is the topic of `alarms.topicArn`. */
  readonly topic?: boolean;
  readonly message: string;
}

/** What the stack's environment check looks at. */
export interface EnvironmentInputs {
  readonly jobs: readonly JobDefinition[];
  readonly declared?: { readonly account: string; readonly region: string } | undefined;
  readonly alarmTopicArn?: string | undefined;
}

/**
 * The environment the stack must be deployed to: `environment:` when given, else the first
 * enabled `lambda`/`stepfunctions` target's account and region, else the topic's region; and
 * every enabled pinned target or topic that disagrees with it.
 *
 * @example
 * requiredEnvironment({ jobs: [lambdaJobIn('eu-west-1', '111111111111')] }).source?.environment
 * //=> { account: '111111111111', region: 'eu-west-1' }
 */
export function requiredEnvironment(inputs: EnvironmentInputs): {
  source: EnvironmentSource | undefined;
  conflicts: EnvironmentConflict[];
} {
  const pinned = inputs.jobs.filter(
    (job) => job.enabled && HOME_BOUND_TARGET_TYPES.has(job.target.type),
  );
  const first = pinned[0];
  const topic = inputs.alarmTopicArn === undefined ? undefined : arnParts(inputs.alarmTopicArn);
  let source: EnvironmentSource | undefined;
  if (inputs.declared) {
    source = { environment: inputs.declared, from: 'environment:' };
  } else if (first) {
    const { account, region } = arnParts(first.target.arn);
    source = { environment: { account, region }, from: `job '${first.id}'` };
  } else if (topic) {
    source = { environment: { region: topic.region }, from: 'alarms.topicArn' };
  }
  const conflicts: EnvironmentConflict[] = [];
  if (source === undefined) return { source, conflicts };
  const { account, region } = source.environment;
  const where = `${source.from === 'environment:' ? 'the environment: setting' : source.from} (account ${account ?? 'any'}, region ${region})`;
  for (const job of pinned) {
    const at = arnParts(job.target.arn);
    if (at.account === account && at.region === region) continue;
    conflicts.push({
      job,
      message: `a ${job.target.type} target must be in the account and region the stack is deployed to, because zonecron can only learn how its runs ended there; '${job.target.arn}' is in account ${at.account}, region ${at.region}, but the stack's are those of ${where}: deploy one stack per account and region, or reach it through an SQS, SNS or EventBridge target`,
    });
  }
  if (topic && topic.region !== region) {
    conflicts.push({
      topic: true,
      message: `CloudWatch alarms can only notify a topic in their own region; '${inputs.alarmTopicArn}' is in region ${topic.region}, but the stack's region is that of ${where}`,
    });
  }
  return { source, conflicts };
}
