import type { JobDefinition } from '#jobs/job.ts';
import type { RunItem, Signal } from '#ledger/index.ts';
import type { SlotHold } from '../../cli/simulation/containers.ts';
import type { SimulatedDelivery } from '../../cli/simulation/faulty-parts.ts';
import type { OutcomeInput } from '../../cli/simulation/outcomes.ts';
import type { SentNotification } from '../../cli/simulation/recorders.ts';
import { periodBucket } from '../../functions/schedule/index.ts';
import { makeJob } from './jobs.ts';

/** An hourly UTC job to a Lambda function: 5 minutes of grace, 30 minutes of maxRuntime. */
export const hourly: JobDefinition = makeJob({
  id: 'hourly',
  schedule: '0 * * * *',
  timezone: 'UTC',
  target: { type: 'lambda', arn: 'arn:aws:lambda:us-east-1:000000000000:function:hourly' },
  maxRuntimeSeconds: 1800,
});

export const at = (hhmm: string) => new Date(`2027-03-28T${hhmm}:00.000Z`);
export const keyOf = (job: JobDefinition, hhmm: string) => periodBucket(job.id, at(hhmm));

/** A run's ledger item as the ledger would hold it at the end. */
export function item(job: JobDefinition, hhmm: string, over: Partial<RunItem> = {}): RunItem {
  return {
    key: keyOf(job, hhmm),
    jobId: job.id,
    at: at(hhmm).toISOString(),
    nominal: `2027-03-28T${hhmm}`,
    dst: 'none',
    status: 'succeeded',
    attempts: 1,
    roundAttempts: 1,
    generation: 0,
    manual: false,
    origin: 'tick',
    signals: [],
    outbox: [],
    ...over,
  };
}

/** One delivery of a run, `seconds` after the run's instant, with its delivery id. */
export function delivery(
  job: JobDefinition,
  hhmm: string,
  seconds: number,
  deliveryId: string,
  attempt = 1,
): SimulatedDelivery {
  return {
    target: job.target,
    envelope: {
      version: 1,
      jobId: job.id,
      key: keyOf(job, hhmm),
      scheduledAt: at(hhmm).toISOString(),
      nominal: `2027-03-28T${hhmm}`,
      timezone: job.timezone,
      dst: 'none',
      attempt,
      logicalDate: '2027-03-28',
      payload: null,
      stack: 'simulation',
    },
    deliveredAt: new Date(at(hhmm).getTime() + seconds * 1000),
    deliveryId,
    window: 0,
  };
}

/** A notification of a signal about a run, sent at `sentAt`. */
export function notified(run: RunItem, signal: Signal, sentAt: Date): SentNotification {
  return {
    notification: {
      version: 1,
      signal,
      stack: 'simulation',
      jobId: run.jobId,
      key: run.key,
      at: run.at,
      local: run.at,
      nominal: run.nominal,
      dst: run.dst,
      status: run.status,
      attempts: run.attempts,
      runs: 1,
      first: run.at,
      last: run.at,
      summary: `${run.jobId} ${signal}`,
      commands: { history: 'zonecron history' },
    },
    sentAt,
  };
}

/** A take of a forbid slot by a run. */
export function hold(job: JobDefinition, hhmm: string, over: Partial<SlotHold> = {}): SlotHold {
  return {
    jobId: job.id,
    key: keyOf(job, hhmm),
    at: at(hhmm),
    untilEpochMs: at(hhmm).getTime() + job.maxRuntimeSeconds * 1000,
    released: false,
    orphaned: false,
    ...over,
  };
}

/**
 * A clean simulation of the hourly job's runs at 10:00 and 11:00: each delivered by its own
 * tick a second late, finished a minute later, nothing else happened.
 */
export function cleanInput(over: Partial<OutcomeInput> = {}): OutcomeInput {
  const runs = ['10:00', '11:00'];
  return {
    jobs: [hourly],
    expected: new Map([
      [
        hourly.id,
        runs.map((hhmm) => ({ at: at(hhmm), nominal: `2027-03-28T${hhmm}`, dst: 'none' as const })),
      ],
    ]),
    items: new Map(runs.map((hhmm) => [keyOf(hourly, hhmm), item(hourly, hhmm)])),
    deliveries: runs.map((hhmm) => delivery(hourly, hhmm, 1, `req-${hhmm}`)),
    completions: new Map(
      runs.map((hhmm) => [`req-${hhmm}`, new Date(at(hhmm).getTime() + 61_000)]),
    ),
    reported: new Map(runs.map((hhmm) => [`req-${hhmm}`, new Date(at(hhmm).getTime() + 61_200)])),
    deadLetters: [],
    notifications: [],
    redelivered: new Map(),
    overlapSkips: [],
    firstClaims: new Map(
      runs.map((hhmm, invocation) => [
        keyOf(hourly, hhmm),
        { at: new Date(at(hhmm).getTime() + 1000), invocation },
      ]),
    ),
    slotHolds: [],
    pauses: [],
    faulted: true,
    windows: [{ from: at('00:00'), to: at('23:59') }],
    deployments: [],
    deliveryCauses: new Map(),
    deadLettersDeleted: new Map(),
    operator: [],
    hostile: [],
    ...over,
  };
}
