import type { Command } from 'commander';
import { CliError, usageError } from '../errors.ts';

/** The variable the sandbox's `export` lines set to its loopback endpoint. */
export const SANDBOX_URL_VARIABLE = 'ZONECRON_SANDBOX_URL';

/** What each subcommand sets, and how it reads once set. */
const ACTIONS = {
  fail: {
    behaviour: 'fail',
    summary:
      "make the job's target fail from its next delivery on: a Lambda function or execution fails, other targets refuse the delivery",
    now: 'fails',
  },
  hang: {
    behaviour: 'hang',
    summary:
      "make the job's Lambda function or execution never finish from its next delivery on, so its runs go stuck",
    now: 'hangs',
  },
  heal: {
    behaviour: 'succeed',
    summary: "make the job's target succeed again (undoes fail and hang)",
    now: 'succeeds',
  },
} as const;

type Action = keyof typeof ACTIONS;

/** What the sandbox answered: the job, its behaviour now and before. */
interface Changed {
  readonly jobId: string;
  readonly behaviour: string;
  readonly was: string;
}

/**
 * `zonecron sandbox fail|hang|heal <job>`: run in the second shell, they change what a job's
 * target does in the running sandbox, through its loopback endpoint (`ZONECRON_SANDBOX_URL`).
 */
export function registerSandboxTargets(sandbox: Command): void {
  for (const action of Object.keys(ACTIONS) as Action[]) {
    sandbox
      .command(`${action} <job>`)
      .description(ACTIONS[action].summary)
      .option('--json', 'print the change as one JSON document')
      .addHelpText('after', exampleOf(action))
      .action((jobId: string, options: { json?: boolean }) => changeTarget(action, jobId, options));
  }
}

function exampleOf(action: Action): string {
  const undo = action === 'heal' ? '' : '\n  (zonecron sandbox heal nightly-report undoes it)';
  return `
Example:
  $ zonecron sandbox ${action} nightly-report
  in the shell of the sandbox's export lines; from the job's next delivery on${undo}`;
}

async function changeTarget(action: Action, jobId: string, options: { json?: boolean }) {
  const base = process.env[SANDBOX_URL_VARIABLE];
  if (!base) {
    throw new CliError(
      `${SANDBOX_URL_VARIABLE} is not set: run the export lines 'zonecron sandbox' printed in this shell first`,
    );
  }
  const url = `${base}/zonecron-sandbox/targets/${encodeURIComponent(jobId)}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ behaviour: ACTIONS[action].behaviour }),
    });
  } catch (error) {
    throw new CliError(
      `no sandbox answers on ${base} (${SANDBOX_URL_VARIABLE}): is 'zonecron sandbox' still running?`,
      { cause: error },
    );
  }
  const answer = (await response.json()) as Partial<Changed> & { message?: string };
  if (response.status === 404) throw usageError(answer.message ?? `unknown job '${jobId}'`);
  if (!response.ok) throw new CliError(`the sandbox refused: ${answer.message ?? response.status}`);
  if (options.json) {
    process.stdout.write(`${JSON.stringify(answer)}\n`);
    return;
  }
  const before = Object.values(ACTIONS).find((a) => a.behaviour === answer.was)?.now;
  const was = answer.was === ACTIONS[action].behaviour ? ' (as before)' : ` (before: ${before})`;
  const undo = action === 'heal' ? '' : `; zonecron sandbox heal ${jobId} undoes it`;
  process.stdout.write(
    `the sandbox's target of '${jobId}' now ${ACTIONS[action].now}${was}${undo}\n`,
  );
}
