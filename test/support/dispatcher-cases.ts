// What the dispatcher's integration cases (test/integration/dispatcher/) share: a ledger table
// per case, real SQS delivery through fauxqs, the stack's lease, a five-minutely job, a lambda
// target and a run's key.
//
// Cases there marked "found by" pinned a failure: of a fault search against DynamoDB Local (a
// run that ended nowhere, was delivered twice, ignored a policy or raised a wrong alarm), or of
// the seeded chaos simulation (`zonecron simulate --faults`,
// test/integration/cli/simulation/run-simulation.test.ts: an invariant failed).
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, beforeEach, inject } from 'vitest';
import type { JobDefinition } from '#jobs/job.ts';
import {
  createTargetDelivery,
  type TargetClients,
} from '../../functions/dispatcher/targets/index.ts';
import { queueUrlViaGetQueueUrl } from '../../functions/dispatcher/targets/sqs.ts';
import { periodBucket } from '../../functions/schedule/index.ts';
import { type LocalSqs, startLocalSqs } from './fauxqs.ts';
import { makeJob } from './jobs.ts';
import { createLedgerTable, localDynamoClient } from './ledger.ts';

/** What {@link tablePerCase} hands each case. */
export interface CaseTables {
  readonly client: DynamoDBClient;
  /** A ledger table of the case's own: the sweep looks at every open run of its table. */
  readonly tableName: string;
  /** One fauxqs for the whole describe, when asked for with `sqs`. */
  readonly local: LocalSqs | undefined;
}

/**
 * Registers the hooks of a describe whose cases each get a ledger table of their own on the run's
 * DynamoDB Local (and, with `sqs`, share one fauxqs); `use` receives them before each case.
 *
 * @example
 * describe('retries', () => {
 *   tablePerCase('retries', { sqs: true }, (tables) => ({ client, tableName } = tables));
 * });
 */
export function tablePerCase(
  prefix: string,
  options: { readonly sqs?: boolean },
  use: (tables: CaseTables) => void,
): void {
  let client: DynamoDBClient;
  let local: LocalSqs | undefined;
  beforeAll(async () => {
    client = localDynamoClient(inject('dynamoEndpoint'));
    if (options.sqs) local = await startLocalSqs();
  });
  beforeEach(async () => {
    use({ client, tableName: await createLedgerTable(client, prefix), local });
  });
  afterAll(async () => {
    client.destroy();
    await local?.stop();
  });
}

/** Real target delivery whose SQS client talks to fauxqs (the other clients unused). */
export function sqsTargetsOf(local: LocalSqs) {
  return createTargetDelivery({ sqs: local.sqs } as unknown as TargetClients, {
    resolveQueueUrl: queueUrlViaGetQueueUrl(local.sqs),
  });
}

/** The stack's lease: the dispatcher's 60 s timeout plus 30 s. */
export const STACK_LEASE_SECONDS = 90;

/** A job every five minutes, in UTC. */
export const fiveMinutely = makeJob({ id: 'every-five', schedule: '*/5 * * * *', timezone: 'UTC' });

/**
 * A lambda target of the function `name`.
 *
 * The cases that pass it to `makeJob` read the recorder's completions, which name the function.
 */
export const lambdaTarget = (name: string) => ({
  type: 'lambda' as const,
  arn: `arn:aws:lambda:us-east-1:000000000000:function:${name}`,
});

/**
 * The key of `job`'s run at the instant `iso`.
 *
 * @example
 * key(job, '2023-06-01T10:10:00Z') //=> periodBucket(job.id, new Date('2023-06-01T10:10:00Z'))
 */
export function key(job: JobDefinition, iso: string) {
  return periodBucket(job.id, new Date(iso));
}
