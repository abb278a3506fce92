/**
 * What EventBridge Scheduler sends the dispatcher (architecture §4): the tick of a job and the
 * sweep, with the `<aws.scheduler.…>` placeholders Scheduler fills in at each invocation.
 *
 * "If you are configuring a templated Lambda, AWS Step Functions, or Amazon EventBridge
 * target, the input must be a well-formed JSON" (EventBridge Scheduler API Reference, "Target":
 * `Input`; the placeholders are in the User Guide, "Adding context attributes"), and the
 * dispatcher is a templated Lambda target. So every placeholder sits inside a string,
 * `attempt-number` included: the dispatcher reads `"attempt":"2"` as 2.
 */

/** The placeholders Scheduler substitutes, with a sample value of the right shape each. */
export const SCHEDULER_PLACEHOLDERS: Readonly<Record<string, string>> = {
  '<aws.scheduler.schedule-arn>': 'arn:aws:scheduler:eu-west-1:123456789012:schedule/group/name',
  '<aws.scheduler.scheduled-time>': '2026-11-29T02:30:00Z',
  '<aws.scheduler.execution-id>': 'd32c5kddcf5bb8c3',
  '<aws.scheduler.attempt-number>': '1',
};

/** The input of one job's tick. */
export function tickInput(jobId: string): string {
  return `{"jobId":${JSON.stringify(jobId)},"scheduledTime":"<aws.scheduler.scheduled-time>","executionId":"<aws.scheduler.execution-id>","attempt":"<aws.scheduler.attempt-number>"}`;
}

/** The input of the one-minute sweep. */
export const SWEEP_INPUT = '{"sweep":true,"scheduledTime":"<aws.scheduler.scheduled-time>"}';

/** The sweep's expression: every minute, in UTC. */
export const SWEEP_EXPRESSION = 'cron(* * * * ? *)';

/**
 * Name of the sweep's schedule. It contains a dot, which job ids never do, so it can never
 * collide with a job's schedule (named after the job id).
 */
export const SWEEP_SCHEDULE_NAME = 'zonecron.sweep';

/** Every schedule is evaluated in UTC; the covering expressions are UTC by construction. */
export const SCHEDULE_TIME_ZONE = 'UTC';

/**
 * How often Scheduler retries handing a tick to the dispatcher.
 *
 * Independent of a job's `retry.maxAttempts` (which counts deliveries to the job's target):
 * a tick is idempotent, because the dispatcher claims each run once by its deterministic key,
 * so retrying it is always safe.
 */
export const TICK_RETRY_ATTEMPTS = 3;

/**
 * Replaces every Scheduler placeholder by its sample value: what a schedule's input looks like
 * to the dispatcher.
 *
 * @example
 * withSampleContext(tickInput('a')) //=> '{"jobId":"a","scheduledTime":"2026-11-29T02:30:00Z",…,"attempt":"1"}'
 */
export function withSampleContext(input: string): string {
  let text = input;
  for (const [placeholder, sample] of Object.entries(SCHEDULER_PLACEHOLDERS)) {
    text = text.split(placeholder).join(sample);
  }
  return text;
}
