/**
 * Adding a job leaves every other job's schedule where it was: same stack, same logical id,
 * same properties. A schedule that moved would be created in its new stack before the old one
 * was deleted, and its name is already taken in the installation's group (infra/stacks/sharding.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { parseJobsConfig } from '../../infra/config/load-jobs.ts';
import { generateJobsYaml } from '../../scripts/generate-jobs.ts';
import { type CfnResource, type SynthesizedFixture, synthFixture } from './synth-fixture.ts';

const NEW_JOB = `  - id: added-later
    description: one more job, inserted in the middle of the file
    schedule: "15 4 * * *"
    timezone: Europe/Paris
    alarm: { dedicated: true }
    target: { type: lambda, arn: 'arn:aws:lambda:eu-west-1:123456789012:function:added' }
`;

let before: SynthesizedFixture;
let after: SynthesizedFixture;

beforeAll(() => {
  const yaml = generateJobsYaml({ count: 300, seed: 5, dedicated: 10 });
  const middle = yaml.indexOf('  - id: j00150-');
  before = synthFixture(parseJobsConfig(yaml, 'before.yaml'), { bundle: false });
  after = synthFixture(
    parseJobsConfig(`${yaml.slice(0, middle)}${NEW_JOB}${yaml.slice(middle)}`, 'after.yaml'),
    { bundle: false },
  );
}, 120_000);

/** `stack/logicalId` → resource, for one type, outside the main stack. */
function shardResources(fx: SynthesizedFixture, type: string): Map<string, CfnResource> {
  return new Map(
    Object.entries(fx.allResources).filter(
      ([key, resource]) => resource.Type === type && !key.startsWith('Zonecron/'),
    ),
  );
}

describe('adding one job', () => {
  it.each(['AWS::Scheduler::Schedule', 'AWS::Lambda::EventInvokeConfig', 'AWS::CloudWatch::Alarm'])(
    'keeps every %s of the other jobs in the same stack, under the same logical id, unchanged',
    (type) => {
      const old = shardResources(before, type);
      const now = shardResources(after, type);
      expect(old.size).toBeGreaterThan(0);
      for (const [key, resource] of old) expect(now.get(key), key).toEqual(resource);
    },
  );

  it('adds exactly the new job’s schedule, invoke config and alarms', () => {
    const added = [...Object.keys(after.allResources)].filter(
      (key) => !(key in before.allResources),
    );
    const types = added.map((key) => after.allResources[key]?.Type).sort();
    expect(types).toEqual([
      ...new Array(6).fill('AWS::CloudWatch::Alarm'),
      'AWS::Lambda::EventInvokeConfig',
      'AWS::Scheduler::Schedule',
    ]);
  });
});
