import type { DeadLetters } from '#jobs/dead-letters.ts';
import { createSqsDeadLetters } from '#jobs/dead-letters.ts';
import type { JobDefinition } from '#jobs/job.ts';
import { createLedgerStore, type Ledger, type Notifier, RecordingNotifier } from '#ledger/index.ts';
import type { RecordingLogger } from '#shared/logger.ts';
import type { DispatcherOptions } from '../../functions/dispatcher/context.ts';
import type { Dispatcher } from '../../functions/dispatcher/dispatch.ts';
import {
  createTargetDelivery,
  type TargetDelivery,
} from '../../functions/dispatcher/targets/index.ts';
import { queueUrlViaGetQueueUrl } from '../../functions/dispatcher/targets/sqs.ts';
import { CliError } from '../errors.ts';
import { localDispatcher, tableLedgers } from '../local-world/index.ts';
import type { CliClients, OperateConnection } from './connection.ts';

/** What the operator's dispatcher needs besides the clients. */
export interface OperatorDispatcherOptions {
  readonly clients: CliClients;
  readonly jobs: readonly JobDefinition[];
  readonly tableName: string;
  /** Where a run that exhausts its attempts goes; without it such a run is an error. */
  readonly dlqUrl?: string;
  /** The stack's name, for envelopes and notifications. */
  readonly stackName: string;
  /**
   * Where on-call notifications go (`--stack` finds the topic).
   * @default kept in memory and shown by the command
   */
  readonly notifier?: Notifier;
  /** Days the ledger keeps what this dispatcher writes (`retention.days`). @default 35 */
  readonly retentionDays?: number;
}

/** The dispatcher core as `run` and `dlq redrive` use it, with what it logged. */
export interface OperatorDispatcher {
  readonly dispatcher: Dispatcher;
  readonly logger: RecordingLogger;
  readonly notifier: Notifier;
}

const noDeadLetterQueue: DeadLetters = {
  async send(message) {
    throw new CliError(
      `run ${message.key.slice(0, 7)} of '${message.jobId}' ran out of attempts and must be` +
        ' dead-lettered: pass --stack <name> or --dlq-url <url> (or set ZONECRON_STACK or' +
        ' ZONECRON_DLQ_URL)',
    );
  },
};

/**
 * The real dispatcher core, run from the operator's machine against the deployed ledger and
 * the real targets: the same claim, delivery, retry and dead-letter path as the Lambda.
 *
 * With `--endpoint-url` (emulators), SQS target URLs are looked up with `GetQueueUrl`
 * instead of being derived from the ARN, because emulators' URLs are not AWS's.
 */
export function createOperatorDispatcher(options: OperatorDispatcherOptions): OperatorDispatcher {
  const { clients } = options;
  return operatorDispatcherOf({
    clock: () => new Date(),
    jobs: options.jobs,
    ledger: tableLedgers(
      createLedgerStore({ client: clients.dynamodb, tableName: options.tableName }),
    ).dispatcher,
    targets: createTargetDelivery(
      clients,
      clients.customSqsEndpoint ? { resolveQueueUrl: queueUrlViaGetQueueUrl(clients.sqs) } : {},
    ),
    deadLetters: options.dlqUrl
      ? createSqsDeadLetters(clients.sqs, options.dlqUrl)
      : noDeadLetterQueue,
    stackName: options.stackName,
    ...(options.notifier ? { notifier: options.notifier } : {}),
    ...(options.retentionDays ? { options: { retentionDays: options.retentionDays } } : {}),
  });
}

/** The operator's dispatcher from its parts: what {@link createOperatorDispatcher} connects. */
export interface OperatorDispatcherParts {
  readonly clock: () => Date;
  readonly jobs: readonly JobDefinition[];
  readonly ledger: Ledger;
  readonly targets: TargetDelivery;
  /** Where a run that exhausts its attempts goes (never a redrive's: it sends none). */
  readonly deadLetters: DeadLetters;
  readonly stackName: string;
  /** @default kept in memory */
  readonly notifier?: Notifier;
  readonly options?: Partial<DispatcherOptions>;
}

/**
 * The dispatcher core as the operating commands run it, from its parts (its `redrive` is one
 * attempt, and a run that fails it is failed again without a second dead-letter message or
 * notification). `zonecron simulate` runs its operators' commands through here, on the
 * simulation's ledger and targets.
 *
 * @example
 * const { dispatcher } = operatorDispatcherOf({ clock, jobs, ledger, targets, deadLetters,
 *   stackName: 'Zonecron' });
 * await dispatcher.redrive({ jobId: 'nightly', at });
 */
export function operatorDispatcherOf(parts: OperatorDispatcherParts): OperatorDispatcher {
  const notifier = parts.notifier ?? new RecordingNotifier();
  const world = { ...parts, notifier };
  const { core: dispatcher, logger } = localDispatcher(world, {
    ledger: parts.ledger,
    targets: parts.targets,
    ...(parts.options ? { options: parts.options } : {}),
  });
  return { dispatcher, logger, notifier };
}

/**
 * The operator's dispatcher for a resolved connection: its stack name, clients, ledger table
 * and (when known) dead-letter queue, with the jobs file's jobs and retention.
 *
 * @example
 * const { dispatcher } = dispatcherFor(await connect(options), loadJobsFile('jobs.yaml'));
 * await dispatcher.runManually({ jobId: 'nightly' });
 */
export function dispatcherFor(
  connection: OperateConnection,
  config: { readonly jobs: readonly JobDefinition[]; readonly retentionDays: number },
): OperatorDispatcher {
  const dlqUrl = connection.optionalDlqUrl();
  return createOperatorDispatcher({
    stackName: connection.stackName,
    clients: connection.clients,
    jobs: config.jobs,
    tableName: connection.tableName(),
    retentionDays: config.retentionDays,
    ...(dlqUrl ? { dlqUrl } : {}),
  });
}
