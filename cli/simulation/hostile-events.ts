import { buildEnvelope } from '#jobs/envelope.ts';
import type { JobDefinition } from '#jobs/job.ts';
import { executionNamePrefix } from '#jobs/stack-scope.ts';
import { stateMachineArnOf } from '#jobs/target-arn.ts';
import type { RecordingMetrics } from '#shared/metrics.ts';
import type { DispatchResult } from '../../functions/dispatcher/dispatch.ts';
import { runOfKey } from '../../functions/dispatcher/planned-run.ts';
import {
  executionArn,
  executionNameFor,
} from '../../functions/dispatcher/targets/execution-name.ts';
import type { RecordOutcome } from '../../functions/recorder/record.ts';
import { periodBucket } from '../../functions/schedule/index.ts';
import type { HostileRecord } from './action-records.ts';
import { executionSucceededEvent, lambdaSuccessEvent } from './completions.ts';
import { SIMULATION_STACK } from './containers.ts';
import { definitionAt } from './deployments.ts';
import type { HostileEvent, HostileTarget } from './fault-plan.ts';
import type { Invocation, Simulation } from './world.ts';

/**
 * The invocation that carries a hostile event to its function, and its record. A forged
 * completion is built from public facts only: the job, the run's instant and key, attempt 1,
 * the target's ARN (for Step Functions, the execution the dispatcher names after the run's
 * key); never from a delivery the simulation made.
 *
 * @example
 * hostileInvocation(sim, 0, { at, kind: 'ancient-tick', job: 'nightly', scheduledTime: epoch })
 * //=> { invocation: { fn: 'dispatcher', payload: { jobId: 'nightly', scheduledTime: '1970-…' }, … }, record }
 */
export function hostileInvocation(
  sim: Simulation,
  index: number,
  event: HostileEvent,
): { invocation: Invocation; record: HostileRecord } {
  const { fn, payload, jobId, key } = hostilePayload(sim, index, event);
  const record: HostileRecord = {
    index,
    at: event.at.toISOString(),
    kind: event.kind,
    jobId,
    to: fn,
    key,
    attempts: 0,
    result: 'lost to an outage',
    counted: [],
    threw: null,
    deliveries: 0,
    recorded: false,
  };
  return { invocation: { fn, payload, attempt: 1, hostile: index }, record };
}

interface HostilePayload {
  readonly fn: HostileTarget;
  readonly payload: object;
  readonly jobId: string | null;
  readonly key: string | null;
}

function hostilePayload(sim: Simulation, index: number, event: HostileEvent): HostilePayload {
  switch (event.kind) {
    case 'ancient-tick':
    case 'future-tick': {
      const scheduledTime = `${event.scheduledTime.toISOString().slice(0, 19)}Z`;
      const payload = {
        jobId: event.job,
        scheduledTime,
        executionId: `hostile-${index}`,
        attempt: 1,
      };
      const key = periodBucket(event.job, event.scheduledTime);
      return { fn: 'dispatcher', payload, jobId: event.job, key };
    }
    case 'forged-completion': {
      const job = definitionAt(sim.deployments, event.job, event.at.getTime());
      if (!job) throw new Error(`hostile[${index}]: job '${event.job}' is not deployed then`);
      const payload = forgedCompletion(job, event, index);
      return { fn: 'recorder', payload, jobId: job.id, key: periodBucket(job.id, event.run) };
    }
    case 'deep-event':
      return { fn: event.to, payload: deepEvent(event.depth), jobId: null, key: null };
    case 'huge-event':
      return {
        fn: event.to,
        payload: { padding: 'x'.repeat(event.bytes) },
        jobId: null,
        key: null,
      };
  }
}

/**
 * A completion report of a run the forger never received: Lambda's invocation record (with a
 * request id of its own making) or a Step Functions status change of the execution named after
 * the run's key, with the envelope of attempt 1.
 *
 * @example
 * forgedCompletion(sfnJob, { at, kind: 'forged-completion', job: 'backup', run, outcome: 'failed' }, 0).detail.status
 * //=> 'FAILED'
 */
export function forgedCompletion(
  job: JobDefinition,
  event: Extract<HostileEvent, { kind: 'forged-completion' }>,
  index: number,
): object {
  const key = periodBucket(job.id, event.run);
  // `run` names the run by its key instant; a run a calendar moved is due at another instant.
  const occurrence = runOfKey(job, event.run) ?? {
    at: event.run,
    nominal: event.run.toISOString().slice(0, 16),
    dst: 'none',
  };
  const run = { key, at: occurrence.at, nominal: occurrence.nominal, dst: occurrence.dst };
  const envelope = buildEnvelope(job, run, 1, SIMULATION_STACK);
  const failed = event.outcome === 'failed';
  if (job.target.type === 'stepfunctions') {
    const name = executionNameFor(executionNamePrefix(SIMULATION_STACK), key, 0);
    const arn = executionArn(stateMachineArnOf(job.target.arn), name);
    const change = executionSucceededEvent(job.target.arn, arn, envelope, event.at, event.at);
    if (!failed) return change;
    return {
      ...change,
      detail: { ...change.detail, status: 'FAILED', error: 'States.TaskFailed' },
    };
  }
  const result = lambdaSuccessEvent(job.target.arn, `forged-${index}`, envelope, event.at);
  if (!failed) return result;
  return {
    ...result,
    'detail-type': 'Lambda Function Invocation Result - Failure',
    detail: {
      ...result.detail,
      requestContext: { ...result.detail.requestContext, condition: 'RetriesExhausted' },
      responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
    },
  };
}

/** `{ nested: { nested: … } }`, `depth` levels deep, built without recursion. */
function deepEvent(depth: number): object {
  const root: { nested?: object } = {};
  let node = root;
  for (let i = 1; i < depth; i++) {
    const child: { nested?: object } = {};
    node.nested = child;
    node = child;
  }
  return root;
}

/** The sums of every metric of two sinks, to see what one invocation counted. */
export function metricSums(sinks: readonly RecordingMetrics[]): Map<string, number> {
  const sums = new Map<string, number>();
  sinks.forEach((sink, i) => {
    for (const [key, values] of sink.values) {
      sums.set(
        `${i}:${key}`,
        values.reduce((a, b) => a + b, 0),
      );
    }
  });
  return sums;
}

/**
 * The metrics whose sums grew between two snapshots, by name (`RejectedTicks`,
 * `nightly/DuplicatesSuppressed`).
 *
 * @example
 * countedBetween(new Map(), new Map([['0:MalformedEvents', 1]])) //=> ['MalformedEvents']
 */
export function countedBetween(
  before: ReadonlyMap<string, number>,
  after: ReadonlyMap<string, number>,
): string[] {
  const grown: string[] = [];
  for (const [key, sum] of after) {
    if (sum > (before.get(key) ?? 0)) grown.push(key.slice(key.indexOf(':') + 1));
  }
  return grown;
}

/**
 * What a function answered, in a few words.
 *
 * @example
 * answerOf({ kind: 'ignored', reason: 'future' }) //=> 'ignored (future)'
 * answerOf({ outcome: 'recorded', status: 'succeeded', … }) //=> 'recorded succeeded'
 */
export function answerOf(answer: DispatchResult | RecordOutcome): string {
  if ('kind' in answer) {
    switch (answer.kind) {
      case 'ignored':
        return `ignored (${answer.reason})`;
      case 'tick': {
        const outcomes = answer.outcomes.map((o) => o.outcome);
        return outcomes.length === 0 ? 'tick: no run' : `tick: ${outcomes.join(', ')}`;
      }
      case 'manual':
      case 'redrive':
        return `${answer.kind}: ${answer.outcome.outcome}`;
      default:
        return answer.kind;
    }
  }
  switch (answer.outcome) {
    case 'recorded':
      return `recorded ${answer.status}`;
    case 'ignored':
      return `ignored (${answer.reason})`;
    case 'not-terminal':
      return `not terminal (${answer.status})`;
    case 'unrecognised':
      return `unrecognised (${answer.reason.slice(0, 120)})`;
  }
}
