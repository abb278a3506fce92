import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { GetFunctionCommand, LambdaClient } from '@aws-sdk/client-lambda';
import {
  GetScheduleCommand,
  ListSchedulesCommand,
  ResourceNotFoundException,
  SchedulerClient,
  type ScheduleState,
} from '@aws-sdk/client-scheduler';
import { mockClient } from 'aws-sdk-client-mock';
import { vi } from 'vitest';
import { type JobDefinition, tracksCompletion } from '#jobs/job.ts';
import { emptyJobsBundle, serializeJobsBundle } from '#jobs/jobs-bundle.ts';
import { createDynamoLedger, createLedgerStore, type Ledger } from '#ledger/index.ts';
import type { DeployedSchedule } from '../../cli/deployed/deployed-schedule.ts';
import { zipArchive } from '../../cli/sandbox/zip-archive.ts';
import { type Occurrence, periodBucket } from '../../functions/schedule/index.ts';
import { parseJobsConfig } from '../../infra/config/load-jobs.ts';
import { createLedgerTable, LOCAL_CREDENTIALS, localDynamoClient } from '../support/ledger.ts';
import { type ObjectServer, serveObject } from '../support/zip.ts';

const schedulerMock = () => mockClient(SchedulerClient);
const cloudFormationMock = () => mockClient(CloudFormationClient);
type SchedulerMock = ReturnType<typeof schedulerMock>;
type CloudFormationMock = ReturnType<typeof cloudFormationMock>;
const lambdaMock = () => mockClient(LambdaClient);
type LambdaMock = ReturnType<typeof lambdaMock>;

/** Its dispatcher function, the stack output `DispatcherFunctionName`. */
export const DISPATCHER_FUNCTION = 'Prod-Zonecron-Dispatcher';

/** The fake stack's name, as `--stack` or `ZONECRON_STACK` give it. */
export const STACK_NAME = 'Prod-Zonecron';
/** Its schedule group, the stack output `ScheduleGroupName`. */
export const SCHEDULE_GROUP = 'Prod-Zonecron-Schedules';
const STACK_ARN =
  'arn:aws:cloudformation:us-east-1:123456789012:stack/Prod-Zonecron/0f3e2a10-8c1b-11ef-9f0e-0a1b2c3d4e5f';

/** A deployed stack for commands run in this process: its ledger real, the rest stubbed. */
export interface FakeStack {
  /** The ledger table on DynamoDB Local, named by the stack's `LedgerTableName` output. */
  readonly tableName: string;
  /** The run ledger on that table, to put runs and pauses in as the dispatcher would. */
  readonly ledger: Ledger;
  /** A jobs file in a temporary directory, as `--config` takes it. */
  readonly config: string;
  /** The connection options that reach it: `--stack` and the DynamoDB Local endpoint. */
  readonly options: { readonly stack: string; readonly endpointUrl: string[] };
  readonly scheduler: SchedulerMock;
  readonly cloudFormation: CloudFormationMock;
  /** With a deployed jobs file: Lambda's `GetFunction` of the dispatcher, and its package. */
  readonly dispatcher?: { readonly lambda: LambdaMock; readonly package: ObjectServer };
  stop(): void;
}

/** The jobs the fake stack's dispatcher was deployed with (a jobs file's text), and its retention. */
export interface DeployedJobsFile {
  readonly jobsYaml: string;
  /** The dispatcher's `RETENTION_DAYS`. @default the file's retention.days */
  readonly retentionDays?: number;
  /** The zonecron version recorded in `jobs.json`. @default none, as in an older bundle */
  readonly zonecronVersion?: string;
}

/**
 * A stack for `list` and `describe` run in-process: CloudFormation's `DescribeStacks` and the
 * schedule group's `ListSchedules` and `GetSchedule` answer from `aws-sdk-client-mock` (neither
 * has an emulator here), the ledger is a fresh table on the run's DynamoDB Local, and the
 * SDK's credential chain finds dummy keys in the environment. With `deployed`, the stack has a
 * dispatcher whose `GetFunction` (Lambda has no emulator here) points at a zip package with
 * that file's `jobs.json`, served with byte ranges from a local HTTP server as S3 serves a
 * pre-signed URL. `jobsYaml` null writes no local jobs file.
 *
 * @example
 * const stack = await startFakeStack(inject('dynamoEndpoint'), jobsYaml, schedules);
 * const list = await buildJobList({ ...stack.options, config: stack.config }, { env: {}, now });
 */
export async function startFakeStack(
  dynamoEndpoint: string,
  jobsYaml: string | null,
  schedules: readonly DeployedSchedule[],
  deployed?: DeployedJobsFile,
): Promise<FakeStack> {
  vi.stubEnv('AWS_ACCESS_KEY_ID', LOCAL_CREDENTIALS.accessKeyId);
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', LOCAL_CREDENTIALS.secretAccessKey);
  const client = localDynamoClient(dynamoEndpoint);
  const tableName = await createLedgerTable(client, 'list');
  const dir = mkdtempSync(join(tmpdir(), 'zonecron-fake-stack-'));
  const config = join(dir, 'jobs.yaml');
  if (jobsYaml !== null) writeFileSync(config, jobsYaml);
  const dispatcher = deployed ? await fakeDispatcher(deployed) : undefined;
  const cloudFormation = cloudFormationMock();
  cloudFormation.on(DescribeStacksCommand).resolves({
    Stacks: [
      {
        StackName: STACK_NAME,
        StackId: STACK_ARN,
        StackStatus: 'UPDATE_COMPLETE',
        CreationTime: new Date('2026-01-01T00:00:00Z'),
        Outputs: [
          { OutputKey: 'LedgerTableName', OutputValue: tableName },
          { OutputKey: 'ScheduleGroupName', OutputValue: SCHEDULE_GROUP },
          ...(dispatcher
            ? [{ OutputKey: 'DispatcherFunctionName', OutputValue: DISPATCHER_FUNCTION }]
            : []),
        ],
      },
    ],
  });
  const scheduler = schedulerMock();
  answerSchedules(scheduler, schedules);
  return {
    tableName,
    ledger: createDynamoLedger(createLedgerStore({ client, tableName })),
    config,
    options: { stack: STACK_NAME, endpointUrl: [`dynamodb=${dynamoEndpoint}`] },
    scheduler,
    cloudFormation,
    ...(dispatcher ? { dispatcher } : {}),
    stop() {
      dispatcher?.lambda.restore();
      void dispatcher?.package.stop();
      scheduler.restore();
      cloudFormation.restore();
      client.destroy();
      rmSync(dir, { recursive: true, force: true });
      vi.unstubAllEnvs();
    },
  };
}

/** A stand-in for the bundled handler, as large as a small one and as incompressible. */
const HANDLER = `// ${randomBytes(192 * 1024).toString('base64')}\nexport const handler = () => {};\n`;

/** The dispatcher's package (a handler and `jobs.json`) on a local server, and `GetFunction` of it. */
async function fakeDispatcher(deployed: DeployedJobsFile) {
  const config = parseJobsConfig(deployed.jobsYaml, 'deployed.yaml');
  const version = deployed.zonecronVersion;
  const bundle = serializeJobsBundle({
    ...emptyJobsBundle(),
    jobs: config.jobs,
    ...(version === undefined ? {} : { zonecronVersion: version }),
  });
  const served = await serveObject(
    zipArchive({ 'index.mjs': HANDLER, 'index.mjs.map': '{}', 'jobs.json': bundle }),
  );
  const lambda = lambdaMock();
  lambda.on(GetFunctionCommand, { FunctionName: DISPATCHER_FUNCTION }).resolves({
    Configuration: {
      FunctionName: DISPATCHER_FUNCTION,
      Environment: {
        Variables: { RETENTION_DAYS: String(deployed.retentionDays ?? config.retentionDays) },
      },
    },
    Code: { RepositoryType: 'S3', Location: served.url },
  });
  return { lambda, package: served };
}

/** The group's schedules as EventBridge Scheduler answers for them: listed, and one by one. */
function answerSchedules(scheduler: SchedulerMock, schedules: readonly DeployedSchedule[]): void {
  const byName = new Map(schedules.map((s) => [s.name, s]));
  scheduler.on(ListSchedulesCommand, { GroupName: SCHEDULE_GROUP }).resolves({
    Schedules: schedules.map((s) => ({
      Name: s.name,
      GroupName: SCHEDULE_GROUP,
      State: s.state as ScheduleState,
    })),
  });
  scheduler.on(GetScheduleCommand).callsFake((input: { GroupName?: string; Name?: string }) => {
    const found = input.GroupName === SCHEDULE_GROUP ? byName.get(input.Name ?? '') : undefined;
    if (!found) {
      const message = `Schedule ${input.Name} does not exist.`;
      throw new ResourceNotFoundException({ message, Message: message, $metadata: {} });
    }
    return {
      Name: found.name,
      GroupName: SCHEDULE_GROUP,
      State: found.state as ScheduleState,
      ScheduleExpression: found.expression,
      ScheduleExpressionTimezone: found.timezone,
      Target: {
        Arn: 'arn:aws:lambda:us-east-1:123456789012:function:dispatcher',
        RoleArn: 'arn:aws:iam::123456789012:role/scheduler',
        Input: found.input,
      },
    };
  });
}

/** Where {@link putRun} leaves a run: the ledger's open states, and one dead-lettered. */
export type RunState = 'claimed' | 'dispatched' | 'delivery-failed' | 'dead-lettered';

/**
 * One run of `job` in the ledger, moved there with the dispatcher's own conditional writes:
 * claimed at its instant with a one-minute lease, then dispatched 2 s later, released after a
 * failed attempt, or dead-lettered. Returns its key.
 *
 * @example
 * await putRun(stack.ledger, job, occurrence, 'delivery-failed') //=> '9f5b…'
 */
export async function putRun(
  ledger: Ledger,
  job: JobDefinition,
  run: Occurrence,
  state: RunState,
): Promise<string> {
  const key = periodBucket(job.id, run.at);
  const atMs = run.at.getTime();
  const claim = await ledger.claim({
    key,
    jobId: job.id,
    at: run.at,
    nominal: run.nominal,
    dst: run.dst,
    manual: false,
    origin: 'tick',
    target: job.target.arn,
    secretHash: '0'.repeat(64),
    mode: 'any',
    maxAttempts: job.retry.maxAttempts,
    nowEpochMs: atMs,
    leaseUntilEpochMs: atMs + 60_000,
    ttlEpochSec: Math.floor(atMs / 1000) + 35 * 86_400,
    missed: false,
  });
  if (!claim.claimed) throw new Error(`run ${key} of ${job.id} exists already`);
  const attempts = claim.item.attempts;
  if (state === 'dispatched') {
    await ledger.markDispatched(key, attempts, {
      dispatchedAt: new Date(atMs + 2_000),
      deliveryId: `delivery-${key.slice(0, 7)}`,
      stuckCheckAtEpochMs: tracksCompletion(job) ? atMs + job.maxRuntimeSeconds * 1000 : undefined,
      late: false,
      outboxLeaseUntilEpochMs: atMs,
    });
  } else if (state === 'delivery-failed') {
    await ledger.releaseFailed(key, attempts, {
      lastError: 'ThrottlingException: Rate exceeded',
      retryAtEpochMs: atMs + 60_000,
    });
  } else if (state === 'dead-lettered') {
    await ledger.failDelivery(key, attempts, {
      lastError: 'AccessDeniedException: not authorized to invoke',
      failedAt: new Date(atMs + 5_000),
      outboxLeaseUntilEpochMs: atMs,
    });
  }
  return key;
}
