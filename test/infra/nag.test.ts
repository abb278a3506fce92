/**
 * cdk-nag wiring: an unacknowledged finding fails synth, and acknowledgements must name a
 * finding exactly and carry a reason. (The zonecron stack's own findings: stack.test.ts.)
 */
import { App, Stack } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import {
  acknowledgeNag,
  addNagChecks,
  NagAcknowledgementError,
} from '../../infra/constructs/nag.ts';

const REASON = 'A reason long enough to be a real explanation of the exception.';

function appWithPlainQueue(acknowledge?: (queue: sqs.Queue) => void): App {
  const app = new App();
  const stack = new Stack(app, 'NagProbe');
  const queue = new sqs.Queue(stack, 'Plain', { enforceSSL: true });
  acknowledge?.(queue);
  addNagChecks(app);
  return app;
}

describe('cdk-nag on synth', () => {
  it('fails synth on an unacknowledged finding', () => {
    // A queue that is neither a DLQ nor has one: AwsSolutions-SQS3.
    expect(() => appWithPlainQueue().synth()).toThrow(/AwsSolutions-SQS3/);
  });

  it('passes synth once that exact finding is acknowledged', () => {
    const app = appWithPlainQueue((queue) => acknowledgeNag(queue, 'AwsSolutions-SQS3', REASON));
    expect(() => app.synth()).not.toThrow();
  });

  it('does not accept a near-miss id as an acknowledgement', () => {
    const app = appWithPlainQueue((queue) => acknowledgeNag(queue, 'AwsSolutions-SQS4', REASON));
    expect(() => app.synth()).toThrow(/AwsSolutions-SQS3/);
  });

  it.each([
    ['SQS3', 'a bare rule name'],
    ['AwsSolutions-sqs3', 'a lowercase rule'],
    ['AwsSolutions-IAM5[Resource::*', 'an unclosed finding'],
  ])('rejects the malformed id %s (%s)', (id) => {
    const stack = new Stack(new App(), 'S');
    expect(() => acknowledgeNag(stack, id, REASON)).toThrow(NagAcknowledgementError);
  });

  it('rejects a reason that explains nothing', () => {
    const stack = new Stack(new App(), 'S');
    expect(() => acknowledgeNag(stack, 'AwsSolutions-SQS3', 'n/a')).toThrow(/too short/);
  });
});
