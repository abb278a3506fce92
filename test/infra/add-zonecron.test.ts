/**
 * `addZonecron` in a team's own app: the app's tags, permissions boundary and environment
 * reach every zonecron resource, and the app synthesizes with cdk-nag and the limit checks on.
 * One synth (without Lambda bundling) in `beforeAll`.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, CfnResource, Stack, TagManager, Tags } from 'aws-cdk-lib';
import { ManagedPolicy, PermissionsBoundary } from 'aws-cdk-lib/aws-iam';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { addZonecron, SecondInstallationError } from '../../infra/app/add-zonecron.ts';
import type { ZonecronInstallation } from '../../infra/app/zonecron-app.ts';
import { SYNTH_TIME } from './synth-fixture.ts';

const JOBS_FILE = 'jobs.yaml';
const BOUNDARY = 'arn:aws:iam::123456789012:policy/team-boundary';
const ENV = { account: '123456789012', region: 'eu-central-1' };

interface TemplateResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
}

let app: App;
let installation: ZonecronInstallation;
let templates: Map<string, Record<string, TemplateResource>>;

beforeAll(() => {
  app = new App({
    outdir: mkdtempSync(join(tmpdir(), 'zonecron-add-')),
    context: { 'aws:cdk:bundling-stacks': [] },
  });
  Tags.of(app).add('team', 'payments');
  const own = new Stack(app, 'TeamOwnStack');
  // A queue cdk-nag's AwsSolutions pack finds fault with (no dead-letter queue, no SSL rule):
  // the team's own stack is not zonecron's to judge.
  new Queue(own, 'PlainQueue');
  PermissionsBoundary.of(app).apply(ManagedPolicy.fromManagedPolicyArn(own, 'Boundary', BOUNDARY));
  installation = addZonecron(app, { jobsFile: JOBS_FILE, env: ENV, synthTime: SYNTH_TIME });
  const { directory } = app.synth();
  templates = new Map(
    [installation.main, ...installation.shards].map((stack) => [
      stack.artifactId,
      (
        JSON.parse(readFileSync(join(directory, stack.templateFile), 'utf8')) as {
          Resources: Record<string, TemplateResource>;
        }
      ).Resources,
    ]),
  );
}, 120_000);

/** Every CloudFormation resource of zonecron's stacks, as constructs. */
function zonecronResources(): CfnResource[] {
  return [installation.main, ...installation.shards].flatMap((stack) =>
    stack.node.findAll().filter((c): c is CfnResource => c instanceof CfnResource),
  );
}

function templateOf(resource: CfnResource): TemplateResource {
  const stack = Stack.of(resource);
  const found = templates.get(stack.artifactId)?.[stack.resolve(resource.logicalId) as string];
  if (found === undefined) throw new Error(`no template resource for ${resource.node.path}`);
  return found;
}

describe('addZonecron in an app of its own', () => {
  it("puts the app's tag on every taggable resource of the main and shard stacks", () => {
    const taggable = zonecronResources().filter((r) => TagManager.isTaggable(r));
    expect(taggable.length).toBeGreaterThan(10);
    const untagged = taggable
      .filter((r) => {
        const tags = templateOf(r).Properties?.Tags;
        const text = JSON.stringify(tags ?? null);
        return !text.includes('"team"') || !text.includes('"payments"');
      })
      .map((r) => r.node.path);
    expect(untagged).toEqual([]);
  });

  it("gives every IAM role of the main and shard stacks the app's permissions boundary", () => {
    const roles = zonecronResources().filter((r) => r.cfnResourceType === 'AWS::IAM::Role');
    expect(roles.length).toBeGreaterThanOrEqual(3);
    for (const role of roles) {
      expect(templateOf(role).Properties?.PermissionsBoundary, role.node.path).toBe(BOUNDARY);
    }
  });

  it('creates the main stack and its shards in the given environment, beside the app’s own stack', () => {
    expect(installation.shards.length).toBeGreaterThan(0);
    for (const stack of [installation.main, ...installation.shards]) {
      expect({ account: stack.account, region: stack.region }, stack.stackName).toEqual(ENV);
    }
    expect(installation.main.stackName).toBe('Zonecron');
    expect(app.node.tryFindChild('TeamOwnStack')).toBeInstanceOf(Stack);
  });

  it("leaves the team's own stack to the team: cdk-nag judges zonecron's stacks only", () => {
    const own = app.node.tryFindChild('TeamOwnStack') as Stack;
    const findings = new AwsSolutionsChecks(undefined).validateScope(own).violations;
    expect(findings.map((finding) => finding.ruleName)).toContain('AwsSolutions-SQS3');
    expect(templates.size).toBe(1 + installation.shards.length);
  });

  it('refuses a second installation in the same app', () => {
    expect(() => addZonecron(app, { jobsFile: JOBS_FILE })).toThrow(SecondInstallationError);
  });
});
