/**
 * The AWS limits a zonecron deploy meets, each with the document that states it. The synth
 * checks (`check-assembly.ts`) and `zonecron validate` read them from here and print the
 * citation with every violation.
 */

/** One limit: the largest allowed value, and where AWS says so. */
export interface AwsLimit {
  readonly max: number;
  /** What is counted, for messages ("resources", "characters of event pattern"). */
  readonly what: string;
  /** The AWS document and the quota's name in it. */
  readonly doc: string;
}

const CFN_QUOTAS = 'AWS CloudFormation User Guide, "Understand CloudFormation quotas"';
const CW_QUOTAS = 'Amazon CloudWatch User Guide, "CloudWatch service quotas"';
const IAM_QUOTAS = 'AWS IAM User Guide, "IAM and AWS STS quotas"';
const LAMBDA_QUOTAS = 'AWS Lambda Developer Guide, "Lambda quotas"';

/** Every limit checked at synth and by `zonecron validate`. */
export const AWS_LIMITS = {
  resources: { max: 500, what: 'resources', doc: `${CFN_QUOTAS}: Resources, 500` },
  outputs: { max: 200, what: 'outputs', doc: `${CFN_QUOTAS}: Outputs, 200` },
  parameters: { max: 200, what: 'parameters', doc: `${CFN_QUOTAS}: Parameters, 200` },
  mappings: { max: 200, what: 'mappings', doc: `${CFN_QUOTAS}: Mappings, 200` },
  /**
   * "1 MB" for a template the CDK CLI uploads to S3 (any template over the 51,200 bytes a
   * request may carry, and every nested template); read here as the smaller 1,000,000 bytes.
   */
  templateBytes: {
    max: 1_000_000,
    what: 'bytes of template',
    doc: `${CFN_QUOTAS}: Template body size in an Amazon S3 object, 1 MB (51,200 bytes applies only to a template passed in the request, which the CDK CLI avoids by uploading larger ones)`,
  },
  templateDescriptionBytes: {
    max: 1_024,
    what: 'bytes of template description',
    doc: `${CFN_QUOTAS}: Template description, 1,024 bytes`,
  },
  logicalIdChars: {
    max: 255,
    what: 'characters of logical id',
    doc: `${CFN_QUOTAS}: Resource name, 255 characters`,
  },
  resourcesPerOperation: {
    max: 2_500,
    what: 'resources in one stack operation (a stack and its nested stacks)',
    doc: `${CFN_QUOTAS}: Nested stacks, 2,500 resources created, updated or deleted per operation`,
  },
  eventPatternChars: {
    max: 2_048,
    what: 'characters of event pattern',
    doc: 'Amazon EventBridge User Guide, "Amazon EventBridge quotas": Event pattern size, 2,048 characters',
  },
  managedPolicyChars: {
    max: 6_144,
    what: 'characters of managed policy (whitespace not counted)',
    doc: `${IAM_QUOTAS}: Managed policy size, 6,144 characters`,
  },
  rolePolicyChars: {
    max: 10_240,
    what: "characters of the role's inline policies together (whitespace not counted)",
    doc: `${IAM_QUOTAS}: Role policy size, 10,240 characters for all inline policies of a role`,
  },
  managedPoliciesPerRole: {
    max: 10,
    what: 'managed policies attached to the role',
    doc: `${IAM_QUOTAS}: Managed policies attached to an IAM role, 10 (raisable to 20)`,
  },
  trustPolicyChars: {
    max: 2_048,
    what: 'characters of trust policy',
    doc: `${IAM_QUOTAS}: Role trust policy length, 2,048 characters`,
  },
  alarmsPerAlarmWidget: {
    max: 100,
    what: 'alarms in an alarm status widget',
    doc: 'Amazon CloudWatch API Reference, "Dashboard body structure and syntax": alarm widget, 100 alarms',
  },
  metricsPerWidget: {
    max: 500,
    what: 'metrics in a dashboard widget',
    doc: `${CW_QUOTAS}: Dashboards, 500 metrics per widget`,
  },
  metricsPerDashboard: {
    max: 2_500,
    what: 'metrics on a dashboard (a SEARCH counts as the 500 it may return)',
    doc: `${CW_QUOTAS}: Dashboards, 2,500 metrics per dashboard`,
  },
  widgetsPerDashboard: {
    max: 500,
    what: 'widgets on a dashboard',
    doc: `${CW_QUOTAS}: Dashboards, 500 widgets per dashboard`,
  },
  alarmActions: {
    max: 5,
    what: 'actions of an alarm state',
    doc: `${CW_QUOTAS}: Alarm actions, 5 per alarm`,
  },
  alarmNameChars: {
    max: 255,
    what: 'characters of alarm name',
    doc: 'Amazon CloudWatch API Reference, "PutMetricAlarm": AlarmName, 255 characters',
  },
  alarmDescriptionChars: {
    max: 1_024,
    what: 'characters of alarm description',
    doc: 'Amazon CloudWatch API Reference, "PutMetricAlarm": AlarmDescription, 1,024 characters',
  },
  insightRuleNameChars: {
    max: 128,
    what: 'characters of Contributor Insights rule name',
    doc: 'Amazon CloudWatch API Reference, "PutInsightRule": RuleName, 128 characters',
  },
  scheduleNameChars: {
    max: 64,
    what: 'characters of schedule name',
    doc: 'EventBridge Scheduler API Reference, "CreateSchedule": Name, 64 characters',
  },
  scheduleDescriptionChars: {
    max: 512,
    what: 'characters of schedule description',
    doc: 'EventBridge Scheduler API Reference, "CreateSchedule": Description, 512 characters',
  },
  lambdaEnvironmentBytes: {
    max: 4_096,
    what: 'bytes of environment variables (names and values)',
    doc: `${LAMBDA_QUOTAS}: Function environment variables, 4 KB`,
  },
  lambdaUnzippedBytes: {
    max: 262_144_000,
    what: 'bytes of deployment package, unzipped',
    doc: `${LAMBDA_QUOTAS}: Deployment package (.zip file archive) size, 250 MB unzipped (the 50 MB zipped limit applies only to direct upload; the CDK CLI uploads function code to S3)`,
  },
} as const satisfies Record<string, AwsLimit>;

/** The name of a limit of {@link AWS_LIMITS}. */
export type LimitName = keyof typeof AWS_LIMITS;
