import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDispatcher } from '../../functions/dispatcher/dispatch.ts';
import { createDynamoLedger } from '../../functions/dispatcher/ledger.ts';
import { type Occurrence, occurrencesBetween } from '../../functions/schedule/index.ts';
import type { DeadLetterMessage } from '../../functions/shared/dead-letters.ts';
import type { JobDefinition } from '../../functions/shared/job.ts';
import { scheduleSpecOf } from '../../functions/shared/job.ts';
import { createLedgerStore } from '../../functions/shared/ledger-store.ts';
import { ledgerTableDefinition } from '../../functions/shared/ledger-table.ts';
import { RecordingLogger } from '../../functions/shared/logger.ts';
import { RecordingMetrics } from '../../functions/shared/metrics.ts';
import { RecordingNotifier } from '../../functions/shared/notifications.ts';
import { coveringSchedule } from '../../infra/covering/covering-cron.ts';
import { startEmbeddedDynamo } from './dynalite.ts';
import { scheduledFires } from './events.ts';
import { RecordingDeadLetters, RecordingTargets } from './recorders.ts';
import type { SimulationWindow } from './windows.ts';

/** One run a recorder received, in delivery order. */
export interface SimulatedRun {
  readonly jobId: string;
  readonly at: Date;
  readonly nominal: string;
  readonly dst: 'none' | 'gap' | 'overlap';
  readonly key: string;
  /** Simulated time of the delivery. */
  readonly deliveredAt: Date;
  readonly attempt: number;
  /** Index into the windows. */
  readonly window: number;
}

/** What a simulation did. */
export interface SimulationResult {
  readonly windows: readonly SimulationWindow[];
  readonly runs: readonly SimulatedRun[];
  /** Deliveries the ledger refused, summed over jobs (the dispatcher's metric). */
  readonly duplicatesSuppressed: number;
  readonly duplicatesByJob: ReadonlyMap<string, number>;
  /** Refused deliveries per run key. */
  readonly duplicatesByKey: ReadonlyMap<string, number>;
  /** The engine's runs of every enabled job in the windows: what should have been delivered. */
  readonly expected: ReadonlyMap<string, readonly Occurrence[]>;
  readonly deadLettered: readonly DeadLetterMessage[];
  readonly counts: { readonly ticks: number; readonly sweeps: number; readonly events: number };
  /** The UTC covering expression of each enabled job, as the stack would deploy it. */
  readonly coverings: ReadonlyMap<string, string>;
}

/** Options of {@link runSimulation}. */
export interface SimulationOptions {
  readonly jobs: readonly JobDefinition[];
  readonly windows: readonly SimulationWindow[];
  /** How often Scheduler delivers each per-job tick (>= 1); the sweep fires once a minute. */
  readonly duplicateTicks: number;
  /** Called now and then with simulated minutes done and in total. */
  readonly onProgress?: (doneMinutes: number, totalMinutes: number) => void;
}

/** Simulated latency between a schedule's fire and the dispatcher's start. */
const DELIVERY_DELAY_MS = 200;
const MINUTE_MS = 60_000;

/**
 * Waits until a new table and its index accept requests.
 *
 * dynalite marks a table ACTIVE on a timer after CreateTable returns; on a busy machine the
 * first item write can otherwise arrive before that timer and fail with
 * ResourceNotFoundException.
 */
async function waitUntilActive(client: DynamoDBClient, tableName: string): Promise<void> {
  for (let attempt = 0; attempt < 500; attempt++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const indexesActive = (Table?.GlobalSecondaryIndexes ?? []).every(
      (index) => index.IndexStatus === 'ACTIVE',
    );
    if (Table?.TableStatus === 'ACTIVE' && indexesActive) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`the simulation's ledger table ${tableName} did not become active`);
}

/**
 * Runs the real dispatcher over simulated time against an in-process DynamoDB.
 *
 * Per window: a fresh ledger table (so one window's watermarks never make the next catch up
 * the months between them), the dispatcher core built with a simulated clock, and every fire
 * of the stack's schedules — each job's UTC covering expression and the one-minute sweep —
 * delivered `duplicateTicks` times with Scheduler's input. Only the targets are local.
 */
export async function runSimulation(options: SimulationOptions): Promise<SimulationResult> {
  const enabled = options.jobs.filter((job) => job.enabled);
  const totalMinutes = options.windows.reduce(
    (sum, w) => sum + Math.round((w.to.getTime() - w.from.getTime()) / MINUTE_MS),
    0,
  );
  const expected = new Map<string, Occurrence[]>();
  for (const job of enabled) expected.set(job.id, []);
  const coverings = new Map<string, string>();

  let nowMs = options.windows[0]?.from.getTime() ?? 0;
  const clock = () => new Date(nowMs);
  const targets = new RecordingTargets(clock);
  const deadLetters = new RecordingDeadLetters();
  const metrics = new RecordingMetrics();
  const logger = new RecordingLogger();
  const notifier = new RecordingNotifier();
  const runs: SimulatedRun[] = [];
  const counts = { ticks: 0, sweeps: 0, events: 0 };
  const duplicatesByKey = new Map<string, number>();
  let doneMinutes = 0;

  const db = startEmbeddedDynamo();
  const client = new DynamoDBClient({
    endpoint: db.endpoint,
    requestHandler: db.requestHandler,
    signer: db.signer,
    region: 'local',
    credentials: { accessKeyId: 'simulation', secretAccessKey: 'simulation' },
    maxAttempts: 1,
    // Resolve each command's middleware stack once, not on every call (an SDK option).
    cacheMiddleware: true,
  });
  // Two headers dynalite never reads and the API's semantics never depend on: the SDK's
  // User-Agent (rebuilt and escaped on every request: a few percent of a simulation's CPU) and
  // Lambda's X-Amzn-Trace-Id recursion detection.
  client.middlewareStack.remove('getUserAgentMiddleware');
  client.middlewareStack.remove('recursionDetectionMiddleware');
  try {
    // As the stack does at synth time: once, valid for the 2 years after `from`.
    const coveringFrom = options.windows[0]?.from ?? new Date(nowMs);
    const covering = enabled.map((job) => {
      const schedule = coveringSchedule(job, coveringFrom);
      coverings.set(job.id, schedule.awsExpression);
      return { jobId: job.id, cron: schedule.cron };
    });
    for (const [index, window] of options.windows.entries()) {
      const tableName = `zonecron-simulation-${index + 1}-${randomUUID().slice(0, 8)}`;
      await client.send(new CreateTableCommand(ledgerTableDefinition(tableName)));
      await waitUntilActive(client, tableName);
      const ledger = createDynamoLedger(createLedgerStore({ client, tableName }));
      // All jobs, as the deployed dispatcher has them; only enabled ones have schedules.
      const dispatcher = createDispatcher({
        clock,
        jobs: options.jobs,
        ledger,
        targets,
        deadLetters,
        notifier,
        logger,
        metrics,
        stackName: 'simulation',
      });
      for (const job of enabled) {
        expected
          .get(job.id)
          ?.push(...occurrencesBetween(scheduleSpecOf(job), window.from, window.to));
      }

      const windowStartMinutes = doneMinutes;
      let lastReported = -1;
      for (const fire of scheduledFires(covering, window.from, window.to)) {
        const scheduledTime = `${fire.at.toISOString().slice(0, 19)}Z`;
        const event =
          fire.kind === 'tick'
            ? { jobId: fire.jobId, scheduledTime, executionId: randomUUID(), attempt: 1 }
            : { sweep: true, scheduledTime };
        if (fire.kind === 'tick') counts.ticks++;
        else counts.sweeps++;
        // Scheduler's duplicates of one fire arrive together: they race for the claim.
        const copies = fire.kind === 'tick' ? options.duplicateTicks : 1;
        nowMs = fire.at.getTime() + DELIVERY_DELAY_MS;
        const before = targets.deliveries.length;
        counts.events += copies;
        const results = await Promise.all(
          Array.from({ length: copies }, () => dispatcher.handle(event)),
        );
        for (const result of results) {
          const outcomes =
            'outcomes' in result ? result.outcomes : 'outcome' in result ? [result.outcome] : [];
          for (const o of outcomes) {
            if (o.outcome === 'duplicate') {
              duplicatesByKey.set(o.key, (duplicatesByKey.get(o.key) ?? 0) + 1);
            }
          }
        }
        for (const d of targets.deliveries.slice(before)) {
          runs.push({
            jobId: d.envelope.jobId,
            at: new Date(d.envelope.scheduledAt),
            nominal: d.envelope.nominal,
            dst: d.envelope.dst as SimulatedRun['dst'],
            key: d.envelope.key,
            deliveredAt: d.deliveredAt,
            attempt: d.envelope.attempt,
            window: index,
          });
        }
        if (fire.kind === 'sweep' && options.onProgress) {
          const minutes =
            windowStartMinutes +
            Math.round((fire.at.getTime() - window.from.getTime()) / MINUTE_MS);
          if (minutes - lastReported >= 60 || minutes === totalMinutes) {
            lastReported = minutes;
            options.onProgress(minutes, totalMinutes);
          }
        }
      }
      doneMinutes += Math.round((window.to.getTime() - window.from.getTime()) / MINUTE_MS);
      options.onProgress?.(doneMinutes, totalMinutes);
    }
  } finally {
    client.destroy();
    await db.stop();
  }

  const duplicatesByJob = new Map<string, number>();
  for (const job of enabled) {
    duplicatesByJob.set(job.id, metrics.count(job.id, 'DuplicatesSuppressed'));
  }
  return {
    windows: options.windows,
    runs,
    duplicatesSuppressed: metrics.total('DuplicatesSuppressed'),
    duplicatesByJob,
    duplicatesByKey,
    expected,
    deadLettered: deadLetters.messages,
    counts,
    coverings,
  };
}
