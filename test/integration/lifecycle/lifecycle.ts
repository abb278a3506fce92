import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DispatcherOptions } from '../../../functions/dispatcher/deliver-run.ts';
import { createDynamoCompletionLedger } from '../../../functions/recorder/ledger.ts';
import { createRecorder, type RecordOutcome } from '../../../functions/recorder/record.ts';
import type { RunEnvelope } from '../../../functions/shared/envelope.ts';
import type { JobDefinition } from '../../../functions/shared/job.ts';
import { RecordingLogger } from '../../../functions/shared/logger.ts';
import { RecordingMetrics } from '../../../functions/shared/metrics.ts';
import { RecordingDeadLetters, RecordingTargets, type TestClock } from '../../support/doubles.ts';
import { type Harness, harness } from '../dispatcher/harness.ts';

/** The whole run lifecycle on one ledger table: dispatcher, a recording target, the recorder. */
export interface Lifecycle {
  readonly dispatch: Harness;
  readonly targets: RecordingTargets;
  readonly deadLetters: RecordingDeadLetters;
  readonly recorder: ReturnType<typeof createRecorder>;
  readonly recorderMetrics: RecordingMetrics;
  readonly recorderLogger: RecordingLogger;
  /**
   * Reports one run finished, the way Lambda does for an asynchronous invocation with
   * destinations: a destination record whose `requestPayload` is the envelope it received.
   */
  complete(
    envelope: RunEnvelope,
    finishedAt: Date,
    outcome?: 'Success' | 'RetriesExhausted',
  ): Promise<RecordOutcome>;
}

/** Builds dispatcher + recorder the way their handlers do, on a DynamoDB Local table. */
export function lifecycle(setup: {
  client: DynamoDBClient;
  tableName: string;
  clock: TestClock;
  jobs: readonly JobDefinition[];
  options?: Partial<DispatcherOptions>;
}): Lifecycle {
  const targets = new RecordingTargets();
  const deadLetters = new RecordingDeadLetters();
  const dispatch = harness({ ...setup, targets, deadLetters });
  const recorderMetrics = new RecordingMetrics();
  const recorderLogger = new RecordingLogger();
  const recorder = createRecorder({
    clock: setup.clock.now,
    ledger: createDynamoCompletionLedger({
      client: DynamoDBDocumentClient.from(setup.client),
      tableName: setup.tableName,
    }),
    deadLetters,
    logger: recorderLogger,
    metrics: recorderMetrics,
  });
  let requests = 0;
  return {
    dispatch,
    targets,
    deadLetters,
    recorder,
    recorderMetrics,
    recorderLogger,
    complete(envelope, finishedAt, outcome = 'Success') {
      requests += 1;
      return recorder.handle({
        version: '1.0',
        timestamp: finishedAt.toISOString(),
        requestContext: {
          requestId: `invoke-${requests}`,
          functionArn: `arn:aws:lambda:us-east-1:000000000000:function:${envelope.jobId}:$LATEST`,
          condition: outcome,
          approximateInvokeCount: outcome === 'Success' ? 1 : 3,
        },
        requestPayload: envelope,
        responseContext: {
          statusCode: 200,
          executedVersion: '$LATEST',
          ...(outcome === 'Success' ? {} : { functionError: 'Unhandled' }),
        },
        responsePayload:
          outcome === 'Success' ? null : { errorType: 'Error', errorMessage: 'boom' },
      });
    },
  };
}

/** A per-job tick as EventBridge Scheduler sends it. */
export function tickEvent(jobId: string, scheduledAt: Date) {
  const scheduledTime = scheduledAt.toISOString().replace('.000Z', 'Z');
  return { jobId, scheduledTime, executionId: `exec-${jobId}-${scheduledTime}`, attempt: 1 };
}

/** The one-minute sweep event. */
export function sweepEvent(scheduledAt: Date) {
  return { sweep: true, scheduledTime: scheduledAt.toISOString().replace('.000Z', 'Z') };
}
