import { describe, expect, it } from 'vitest';
import {
  answerBehaviours,
  createTargetBehaviours,
  UnknownSandboxJobError,
} from '../../../../cli/sandbox/target-behaviours.ts';

const PATH = '/zonecron-sandbox/targets';

describe('the targets a sandbox can fail, hang and heal', () => {
  it('start as --fail and --hang said, every other job succeeding, and change while it runs', () => {
    const behaviours = createTargetBehaviours(['nightly', 'report', 'slow'], { slow: 'hang' });
    expect(behaviours.all()).toEqual({ nightly: 'succeed', report: 'succeed', slow: 'hang' });
    behaviours.set('nightly', 'fail');
    behaviours.set('slow', 'succeed');
    expect(['nightly', 'report', 'slow'].map((id) => behaviours.of(id))).toEqual([
      'fail',
      'succeed',
      'succeed',
    ]);
  });

  it('refuse a job the sandbox does not run, with the closest id and the jobs it runs', () => {
    const behaviours = createTargetBehaviours(['nightly']);
    expect(() => behaviours.set('nighlty', 'fail')).toThrow(
      new UnknownSandboxJobError('nighlty', ['nightly']),
    );
    expect(() => behaviours.set('nighlty', 'fail')).toThrow(
      "the sandbox runs no job 'nighlty'; did you mean 'nightly'? (jobs: nightly)",
    );
  });
});

describe("the sandbox's answer to the second shell", () => {
  it('sets a behaviour with PUT and says what it was', () => {
    const behaviours = createTargetBehaviours(['nightly']);
    const body = JSON.stringify({ behaviour: 'hang' });
    expect(answerBehaviours(behaviours, 'PUT', `${PATH}/nightly`, body)).toEqual({
      status: 200,
      body: { jobId: 'nightly', behaviour: 'hang', was: 'succeed' },
    });
    expect(answerBehaviours(behaviours, 'GET', PATH, '')).toEqual({
      status: 200,
      body: { behaviours: { nightly: 'hang' } },
    });
  });

  it.each([
    ['an unknown job', 'PUT', `${PATH}/report`, '{"behaviour":"fail"}', 404, "no job 'report'"],
    ['an unknown behaviour', 'PUT', `${PATH}/nightly`, '{"behaviour":"explode"}', 400, 'expected'],
    ['a body that is no JSON', 'PUT', `${PATH}/nightly`, 'fail', 400, 'expected'],
    ['a PUT without a job', 'PUT', PATH, '{"behaviour":"fail"}', 400, 'answers GET'],
    ['another method', 'DELETE', `${PATH}/nightly`, '', 400, 'answers GET'],
  ])('refuses %s, changing nothing', (_name, method, path, body, status, message) => {
    const behaviours = createTargetBehaviours(['nightly']);
    const answer = answerBehaviours(behaviours, method, path, body);
    expect(answer.status).toBe(status);
    expect(answer.body.message).toContain(message);
    expect(behaviours.all()).toEqual({ nightly: 'succeed' });
  });
});
