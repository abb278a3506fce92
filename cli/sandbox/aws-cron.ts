import { parseCron } from '../../functions/schedule/index.ts';

/** A Scheduler expression the sandbox's scheduler cannot fire: it says which and why. */
export class SandboxExpressionError extends Error {
  override readonly name: string = 'SandboxExpressionError';
  readonly expression: string;
  constructor(expression: string, reason: string, options: { cause?: unknown } = {}) {
    super(`the sandbox cannot fire '${expression}': ${reason}`, options);
    this.expression = expression;
  }
}

/** `cron(minute hour day-of-month month day-of-week year)`, as EventBridge Scheduler writes it. */
const AWS_CRON = /^cron\((\S+) (\S+) (\S+) (\S+) (\S+) (\S+)\)$/;

/**
 * The engine's five-field UTC expression for a Scheduler `cron(…)`, which the sandbox's
 * scheduler fires: the year must be `*`, and AWS's days of the week (1 = Sunday … 7 =
 * Saturday) become the engine's (0 = Sunday … 6); `?`, `L`, `W` and `#` mean the same in both.
 *
 * Why: a schedule edited by hand in the sandbox (`UpdateSchedule`) fires on its new expression,
 * as Scheduler would fire it, so expression drift has the effect it has on a stack.
 *
 * @example
 * engineCronOf('cron(30 0,1 ? * 2-6 *)') //=> '30 0,1 ? * 1-5'
 * engineCronOf('cron(0 9 * * ? 2027)')   //=> throws SandboxExpressionError (a year)
 */
export function engineCronOf(awsExpression: string): string {
  const fields = AWS_CRON.exec(awsExpression.trim());
  if (!fields) {
    throw new SandboxExpressionError(
      awsExpression,
      'it is not cron(minute hour day-of-month month day-of-week year)',
    );
  }
  const [, minute, hour, dayOfMonth, month, dayOfWeek, year] = fields as unknown as string[];
  if (year !== '*')
    throw new SandboxExpressionError(awsExpression, `a year ('${year}') is not read`);
  const cron = `${minute} ${hour} ${dayOfMonth} ${month} ${engineDaysOfWeek(awsExpression, dayOfWeek as string)}`;
  try {
    parseCron(cron);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new SandboxExpressionError(awsExpression, reason, { cause: error });
  }
  return cron;
}

/** Every day number of an AWS day-of-week field one lower; `#k` and `/step` keep theirs. */
function engineDaysOfWeek(expression: string, field: string): string {
  return field.replace(/([#/]?)(\d+)/g, (token, prefix: string, digits: string) => {
    if (prefix !== '') return token;
    const day = Number(digits);
    if (day < 1 || day > 7) {
      throw new SandboxExpressionError(
        expression,
        `invalid day-of-week '${digits}' (allowed 1-7 or SUN-SAT)`,
      );
    }
    return String(day - 1);
  });
}
