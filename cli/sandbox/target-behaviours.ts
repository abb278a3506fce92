/**
 * What each job's target does in a running sandbox, changeable while it runs: `--fail` and
 * `--hang` set it at start, `zonecron sandbox fail|hang|heal <job>` of the second shell change
 * it later through the sandbox's loopback endpoint (`ZONECRON_SANDBOX_URL`).
 *
 * ```
 * second shell: zonecron sandbox fail nightly ──PUT /zonecron-sandbox/targets/nightly──┐
 *                                                                                      v
 * sandbox: dispatcher ──deliver──> local target ──behaviours.of('nightly')──> 'fail'
 * ```
 */

import { closestName } from '#text/message-text.ts';
import type { TargetBehaviour } from './local-targets.ts';

/** The path of the endpoint under which the behaviours are read and set. */
export const BEHAVIOURS_PATH = '/zonecron-sandbox/targets';

/** Every behaviour a target can be given, as the second shell's commands name them. */
export const BEHAVIOURS: readonly TargetBehaviour[] = ['succeed', 'fail', 'hang'];

/** The behaviours of a sandbox's targets: read by the targets, set by the second shell. */
export interface TargetBehaviours {
  /** What the job's target does now; `succeed` unless told otherwise. */
  of(jobId: string): TargetBehaviour;
  /** Sets it; the job must be one of the sandbox's ({@link UnknownSandboxJobError}). */
  set(jobId: string, behaviour: TargetBehaviour): void;
  /** Every job of the sandbox and what its target does, in config order. */
  all(): Readonly<Record<string, TargetBehaviour>>;
}

/** A job the sandbox does not run was named to fail, hang or heal. */
export class UnknownSandboxJobError extends Error {
  override readonly name = 'UnknownSandboxJobError';
  constructor(
    readonly jobId: string,
    readonly known: readonly string[],
  ) {
    const closest = closestName(jobId, known, { maxDistance: Math.max(2, jobId.length >> 2) });
    const hint = closest === undefined ? '' : `; did you mean '${closest}'?`;
    super(`the sandbox runs no job '${jobId}'${hint} (jobs: ${known.join(', ') || 'none'})`);
  }
}

/**
 * The behaviours of the targets of `jobIds`, all `succeed` but those `initial` names.
 *
 * @example
 * const behaviours = createTargetBehaviours(['nightly', 'report'], { nightly: 'fail' });
 * behaviours.set('nightly', 'succeed');
 * behaviours.of('nightly') //=> 'succeed'
 */
export function createTargetBehaviours(
  jobIds: readonly string[],
  initial: Readonly<Record<string, TargetBehaviour>> = {},
): TargetBehaviours {
  const current = new Map<string, TargetBehaviour>(jobIds.map((id) => [id, 'succeed']));
  const behaviours: TargetBehaviours = {
    of: (jobId) => current.get(jobId) ?? 'succeed',
    set(jobId, behaviour) {
      if (!current.has(jobId)) throw new UnknownSandboxJobError(jobId, jobIds);
      current.set(jobId, behaviour);
    },
    all: () => Object.fromEntries(current),
  };
  for (const [jobId, behaviour] of Object.entries(initial)) behaviours.set(jobId, behaviour);
  return behaviours;
}

/** An answer of the endpoint to a behaviours request: an HTTP status and a JSON body. */
export interface ControlAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/**
 * Answers one request to {@link BEHAVIOURS_PATH}: `GET` lists every job's behaviour, `PUT
 * …/<job>` with `{ "behaviour": "fail" | "hang" | "succeed" }` sets one and answers what it
 * was and is now. An unknown job is a 404, a bad body or method a 400, each with a `message`.
 *
 * @example
 * answerBehaviours(behaviours, 'PUT', '/zonecron-sandbox/targets/nightly', '{"behaviour":"fail"}')
 * //=> { status: 200, body: { jobId: 'nightly', behaviour: 'fail', was: 'succeed' } }
 */
export function answerBehaviours(
  behaviours: TargetBehaviours,
  method: string,
  path: string,
  body: string,
): ControlAnswer {
  if (method === 'GET' && path === BEHAVIOURS_PATH) {
    return { status: 200, body: { behaviours: behaviours.all() } };
  }
  const jobId = path.startsWith(`${BEHAVIOURS_PATH}/`)
    ? decodeURIComponent(path.slice(BEHAVIOURS_PATH.length + 1))
    : '';
  if (method !== 'PUT' || jobId === '') {
    return refused(
      400,
      `the sandbox answers GET ${BEHAVIOURS_PATH} and PUT ${BEHAVIOURS_PATH}/<job>`,
    );
  }
  const behaviour = behaviourIn(body);
  if (behaviour === undefined) {
    return refused(400, `expected a body {"behaviour": "${BEHAVIOURS.join('" | "')}"}`);
  }
  const was = behaviours.of(jobId);
  try {
    behaviours.set(jobId, behaviour);
  } catch (error) {
    if (!(error instanceof UnknownSandboxJobError)) throw error;
    return refused(404, error.message);
  }
  return { status: 200, body: { jobId, behaviour, was } };
}

function refused(status: number, message: string): ControlAnswer {
  return { status, body: { message } };
}

function behaviourIn(body: string): TargetBehaviour | undefined {
  try {
    const parsed = JSON.parse(body) as { behaviour?: unknown };
    const wanted = parsed?.behaviour;
    return BEHAVIOURS.find((b) => b === wanted);
  } catch {
    return undefined;
  }
}
