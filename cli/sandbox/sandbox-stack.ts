/**
 * The sandbox's stack: the real dispatcher and recorder, wired by the one local world on the
 * sandbox's ledger, its dead-letter queue and its local targets, woken by the local scheduler.
 *
 * ```
 * local scheduler ──tick/sweep──> dispatcher ──> local targets ──completion──> recorder
 *       ^                             │                                          │
 *       │                             └────── notifications, dead letters ───────┘──> print
 *   schedule group <── Scheduler API ── endpoint ── CloudFormation, Lambda GetFunction (--stack)
 * ```
 */

import { createSqsDeadLetters, type DeadLetters } from '#jobs/dead-letters.ts';
import type { JobDefinition } from '#jobs/job.ts';
import { createLedgerStore, type Notifier } from '#ledger/index.ts';
import { createAwsClients } from '#shared/aws-clients.ts';
import { DEFAULT_RETENTION_DAYS } from '#shared/defaults.ts';
import type { AppLogger } from '#shared/logger.ts';
import type { AppMetrics } from '#shared/metrics.ts';
import { localDispatcher, localRecorder, tableLedgers } from '../local-world/index.ts';
import type { ScheduledFire } from '../simulation/events.ts';
import { runLocalScheduler, type SandboxTimers } from './local-scheduler.ts';
import { createLocalTargets, type LocalTargets } from './local-targets.ts';
import { deadLetterLine, notificationLine } from './sandbox-lines.ts';
import { createSandboxSchedules, type SandboxSchedules } from './sandbox-schedules.ts';
import { SANDBOX_STACK, stackRoutes } from './stack-endpoint.ts';
import { SANDBOX, type Sandbox } from './start-sandbox.ts';
import { createTargetBehaviours, type TargetBehaviours } from './target-behaviours.ts';
import { startTargetEndpoint } from './target-endpoint.ts';

/** What the sandbox's stack runs on. */
export interface SandboxStackOptions {
  readonly sandbox: Sandbox;
  readonly jobs: readonly JobDefinition[];
  readonly timers: SandboxTimers;
  /** One line per notification, dead letter and dispatcher error, as they happen. */
  readonly print: (line: string) => void;
  /**
   * What each job's target does; the sandbox's endpoint changes it for the second shell.
   * @default every job's target succeeds
   */
  readonly behaviours?: TargetBehaviours;
  /**
   * The instant the covering schedules and the served jobs bundle are computed at.
   *
   * @default the timers' now
   */
  readonly synthTime?: Date;
  /** The dispatcher's `RETENTION_DAYS`, as `GetFunction` shows it. @default 35 */
  readonly retentionDays?: number;
}

/** A running sandbox stack, until `stop()`. */
export interface SandboxStack {
  readonly targets: LocalTargets;
  /** The schedule group the local scheduler fires, as the sandbox's Scheduler API serves it. */
  readonly schedules: SandboxSchedules;
  /** The stack's name, as `--stack` takes it. */
  readonly stackName: string;
  /** What each job's target does now. */
  readonly behaviours: TargetBehaviours;
  /**
   * The endpoints of the local Lambda, Step Functions, EventBridge, CloudFormation and
   * Scheduler, and the sandbox's own (`ZONECRON_SANDBOX_URL`, for `zonecron sandbox
   * fail|hang|heal`), as `export` sets them.
   */
  readonly env: Readonly<Record<string, string>>;
  /** Settles when the scheduler stopped. */
  readonly stopped: Promise<void>;
  stop(): Promise<void>;
}

/**
 * Decisions the dispatcher logs at error level that are signals of a run, not faults of the
 * dispatcher: each is printed once, as the notification (or dead letter) it raises.
 */
const SIGNAL_DECISIONS: ReadonlySet<string> = new Set(['dead-lettered', 'stuck', 'missed']);

/**
 * A logger that prints only errors, one short line each: the sandbox shows what on-call sees,
 * not every decision. A signal (a run stuck, missed, dead-lettered) is no error: its
 * notification or its dead letter is the line printed.
 */
function errorsOnly(print: (line: string) => void, part: string): AppLogger {
  return {
    info() {},
    warn() {},
    error(message, fields = {}) {
      if (SIGNAL_DECISIONS.has(message)) return;
      const { jobId, key, lastError } = fields as Record<string, unknown>;
      const run = typeof key === 'string' ? ` run ${key.slice(0, 7)}` : '';
      const job = typeof jobId === 'string' ? ` (job '${jobId}'${run})` : '';
      print(
        `${part} error: ${message}${job}${typeof lastError === 'string' ? `: ${lastError}` : ''}`,
      );
    },
  };
}

const noMetrics: AppMetrics = { job() {}, global() {}, flush() {} };

/**
 * Starts the dispatcher and recorder of a sandbox on the wall clock (or the test's `timers`):
 * the jobs' covering schedules and the sweep fire by themselves, so retries, missed, late and
 * stuck runs happen, and a pause with an end ends.
 *
 * @example
 * const stack = await startSandboxStack({ sandbox, jobs, timers: wallClockTimers, print: console.error });
 * await stack.stop();
 */
export async function startSandboxStack(options: SandboxStackOptions): Promise<SandboxStack> {
  const { sandbox, print, timers } = options;
  const clients = createAwsClients((service) => ({
    region: SANDBOX.region,
    credentials: { accessKeyId: SANDBOX.accessKeyId, secretAccessKey: SANDBOX.secretAccessKey },
    endpoint: service === 'dynamodb' ? sandbox.dynamodbEndpoint : sandbox.sqsEndpoint,
  }));
  const ledgers = tableLedgers(
    createLedgerStore({ client: clients.dynamodb, tableName: sandbox.tableName }),
  );
  const dlq = createSqsDeadLetters(clients.sqs, sandbox.dlqUrl);
  const deadLetters: DeadLetters = {
    async send(message) {
      await dlq.send(message);
      print(deadLetterLine(message));
    },
  };
  const notifier: Notifier = {
    async notify(notification) {
      print(notificationLine(notification));
    },
  };
  const world = {
    clock: () => timers.now(),
    jobs: options.jobs,
    stackName: SANDBOX_STACK.stackName,
    deadLetters,
    notifier,
  };
  const behaviours =
    options.behaviours ?? createTargetBehaviours(options.jobs.map((job) => job.id));
  const targets = createLocalTargets({
    clock: world.clock,
    sqs: clients.sqs,
    sns: clients.sns,
    topicArns: sandbox.targetTopics,
    behaviourOf: (jobId) => behaviours.of(jobId),
  });
  const { core: dispatcher } = localDispatcher(world, {
    ledger: ledgers.dispatcher,
    targets: targets.delivery,
    logger: errorsOnly(print, 'dispatcher'),
    metrics: noMetrics,
  });
  const { core: recorder } = localRecorder(world, {
    ledger: ledgers.recorder,
    logger: errorsOnly(print, 'recorder'),
    metrics: noMetrics,
  });
  const fire = async (scheduled: ScheduledFire, event: object) => {
    try {
      await dispatcher.handle(event);
      for (const completion of targets.takeCompletions()) await recorder.handle(completion);
    } catch (error) {
      print(`${scheduled.kind} at ${scheduled.at.toISOString()} failed: ${String(error)}`);
    }
  };
  const synthTime = options.synthTime ?? timers.now();
  const schedules = createSandboxSchedules(options.jobs, synthTime, world.clock);
  const routes = stackRoutes({
    tableName: sandbox.tableName,
    dlqUrl: sandbox.dlqUrl,
    schedules,
    jobs: options.jobs,
    synthTime,
    retentionDays: options.retentionDays ?? DEFAULT_RETENTION_DAYS,
  });
  const endpoint = await startTargetEndpoint(targets, SANDBOX.host, { behaviours, routes });
  const abort = new AbortController();
  const stopped = runLocalScheduler({
    coverings: () => schedules.coverings(),
    timers,
    fire,
    signal: abort.signal,
  }).finally(async () => {
    clients.destroy();
    await endpoint.close();
  });
  return {
    targets,
    schedules,
    stackName: SANDBOX_STACK.stackName,
    behaviours,
    env: {
      AWS_ENDPOINT_URL_LAMBDA: endpoint.url,
      AWS_ENDPOINT_URL_SFN: endpoint.url,
      AWS_ENDPOINT_URL_EVENTBRIDGE: endpoint.url,
      AWS_ENDPOINT_URL_CLOUDFORMATION: endpoint.url,
      AWS_ENDPOINT_URL_SCHEDULER: endpoint.url,
      ZONECRON_SANDBOX_URL: endpoint.url,
    },
    stopped,
    async stop() {
      abort.abort();
      await stopped;
    },
  };
}
