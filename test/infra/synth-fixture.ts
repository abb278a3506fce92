/**
 * Builds the zonecron app for a jobs file exactly the way `infra/app.ts` does (loader,
 * `createZonecronApp`, cdk-nag registered) and synthesizes it once. Synth bundles two Lambdas
 * with esbuild, so each test file calls this once, in `beforeAll`.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { App, NestedStack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { type JobsConfig, loadJobsFile } from '../../infra/config/load-jobs.ts';
import { createZonecronApp } from '../../infra/zonecron-stack.ts';

/** A fixed synth instant, so covering expressions do not depend on the day the suite runs. */
export const SYNTH_TIME = new Date('2026-11-29T00:00:00.000Z');

export interface SynthesizedFixture {
  readonly config: JobsConfig;
  readonly built: ReturnType<typeof createZonecronApp>;
  readonly template: Template;
  /** The main template as plain JSON. */
  readonly json: { Resources: Record<string, CfnResource>; Outputs: Record<string, unknown> };
  /**
   * The resources of the main template and of every nested stack (the per-job alarms), with
   * each nested template's parameters replaced by the values the parent passes in, so a
   * nested alarm's action reads `{ Ref: <topic> }` like a main-stack one.
   */
  readonly allResources: Record<string, CfnResource>;
  /** The nested templates, by the logical id of their `AWS::CloudFormation::Stack`. */
  readonly nested: Record<string, { Resources: Record<string, CfnResource> }>;
}

/** CloudFormation JSON, as loosely typed as the template is. */
// biome-ignore lint/suspicious/noExplicitAny: template JSON has no static shape
export type Props = Record<string, any>;

export interface CfnResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
  readonly DeletionPolicy?: string;
  readonly UpdateReplacePolicy?: string;
  readonly DependsOn?: string[];
}

export function synthFixture(jobsFile: string): SynthesizedFixture {
  const config = loadJobsFile(resolve(jobsFile));
  const app = new App({ outdir: mkdtempSync(join(tmpdir(), 'zonecron-synth-')) });
  const built = createZonecronApp({ app, config, synthTime: SYNTH_TIME });
  // Synthesizes the whole app, cdk-nag included: an unacknowledged finding throws here.
  app.synth();
  const template = Template.fromStack(built.stack);
  const json = template.toJSON() as SynthesizedFixture['json'];
  const allResources: Record<string, CfnResource> = { ...json.Resources };
  const nested: SynthesizedFixture['nested'] = {};
  for (const child of built.stack.node.findAll()) {
    if (!NestedStack.isNestedStack(child)) continue;
    const resourceId = built.stack.getLogicalId(
      child.nestedStackResource as Parameters<typeof built.stack.getLogicalId>[0],
    );
    const parameters = (json.Resources[resourceId]?.Properties?.Parameters ?? {}) as Props;
    const childJson = Template.fromStack(child).toJSON() as SynthesizedFixture['nested'][string];
    nested[resourceId] = childJson;
    for (const [id, resource] of Object.entries(childJson.Resources)) {
      allResources[`${resourceId}/${id}`] = substituteParameters(resource, parameters);
    }
  }
  return { config, built, template, json, allResources, nested };
}

function substituteParameters<T>(value: T, parameters: Props): T {
  if (Array.isArray(value)) return value.map((v) => substituteParameters(v, parameters)) as T;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Props);
    if (entries.length === 1 && entries[0]?.[0] === 'Ref' && entries[0][1] in parameters) {
      return parameters[entries[0][1] as string] as T;
    }
    return Object.fromEntries(
      entries.map(([k, v]) => [k, substituteParameters(v, parameters)]),
    ) as T;
  }
  return value;
}

/** The resources of one type, by logical id, in the main stack and the nested stacks. */
export function resourcesOfType(
  fixture: SynthesizedFixture,
  type: string,
): [string, CfnResource][] {
  return Object.entries(fixture.allResources).filter(([, resource]) => resource.Type === type);
}

/** The logical id CloudFormation knows a construct's L1 resource by. */
export function logicalIdOf(
  fixture: SynthesizedFixture,
  construct: { node: { defaultChild?: unknown } },
): string {
  return fixture.built.stack.getLogicalId(
    construct.node.defaultChild as Parameters<typeof fixture.built.stack.getLogicalId>[0],
  );
}
