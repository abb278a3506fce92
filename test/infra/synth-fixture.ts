/**
 * Builds a zonecron app the way `infra/app/main.ts` does (loader, `createZonecronApp`, cdk-nag
 * registered), synthesizes it once into a temporary folder and reads back every template.
 * Synth bundles two Lambdas with esbuild unless told not to, so each test file calls this once,
 * in `beforeAll`.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  App,
  CloudFormationValidatePlugin,
  type IPolicyValidationPlugin,
  Validations,
} from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { createZonecronApp, type ZonecronInstallation } from '../../infra/app/zonecron-app.ts';
import { type JobsConfig, loadJobsFile } from '../../infra/config/load-jobs.ts';
import { type AssemblyCheck, checkCloudAssembly } from '../../infra/limits/check-assembly.ts';

/** A fixed synth instant, so covering expressions do not depend on the day the suite runs. */
export const SYNTH_TIME = new Date('2026-11-29T00:00:00.000Z');

/** CloudFormation JSON, as loosely typed as the template is. */
// biome-ignore lint/suspicious/noExplicitAny: template JSON has no static shape
export type Props = Record<string, any>;

export interface CfnResource {
  readonly Type: string;
  readonly Properties?: Props;
  readonly DeletionPolicy?: string;
  readonly UpdateReplacePolicy?: string;
  readonly DependsOn?: string[];
}

export interface TemplateJson {
  readonly Description?: string;
  readonly Resources: Record<string, CfnResource>;
  readonly Outputs?: Record<string, { Value: unknown; Export?: { Name: string } }>;
  readonly Parameters?: Record<string, unknown>;
  readonly Rules?: Record<string, Props>;
}

export interface SynthesizedFixture {
  readonly config: JobsConfig;
  readonly built: ReturnType<typeof createZonecronApp>;
  /** The first installation. */
  readonly installation: ZonecronInstallation;
  /** The main stack's template, for CDK's assertions. */
  readonly template: Template;
  /** The main stack's template as plain JSON. */
  readonly json: TemplateJson;
  /** Every template of the app, by stack name. */
  readonly templates: Record<string, TemplateJson>;
  /**
   * The resources of every template by `<stack>/<logicalId>`, with each `Fn::ImportValue`
   * replaced by the value the exporting stack exports, so a schedule's target reads
   * `{ 'Fn::GetAtt': [<dispatcher>, 'Arn'] }` like a main-stack resource.
   */
  readonly allResources: Record<string, CfnResource>;
  /** The cloud assembly's folder. */
  readonly directory: string;
  /** The AWS-limit check of the assembly, as `infra/app/main.ts` runs it. */
  readonly check: AssemblyCheck;
}

/** The context key that makes CloudFormation validation's default-rule findings errors. */
const DEFAULT_RULES_AS_ERRORS = '@aws-cdk/core:validateAgainstDefaultRules';

export interface FixtureOptions {
  /** Skip esbuild (the Lambda packages are then judged by jobs.json's size). */
  readonly bundle?: boolean;
  /** More installations after the first, in one app. */
  readonly more?: readonly { config: JobsConfig; stackName: string }[];
  readonly stackName?: string;
  /**
   * Register aws-cdk-lib's CloudFormation validation with its default rules as errors, so a
   * finding makes the synth throw (the suite otherwise skips it: vitest.config.mts).
   */
  readonly cloudFormationValidation?: boolean;
}

export function synthFixture(
  jobs: string | JobsConfig,
  options: FixtureOptions = {},
): SynthesizedFixture {
  const config = typeof jobs === 'string' ? loadJobsFile(resolve(jobs)) : jobs;
  const bundle = options.bundle ?? true;
  const app = new App({
    outdir: mkdtempSync(join(tmpdir(), 'zonecron-synth-')),
    context: {
      ...(bundle ? {} : { 'aws:cdk:bundling-stacks': [] }),
      ...(options.cloudFormationValidation ? { [DEFAULT_RULES_AS_ERRORS]: true } : {}),
    },
  });
  if (options.cloudFormationValidation) {
    // The plugin's `version` is optional where the interface's is a string: a mismatch under
    // exactOptionalPropertyTypes only.
    const plugin = new CloudFormationValidatePlugin() as unknown as IPolicyValidationPlugin;
    Validations.of(app).addPlugins(plugin);
  }
  const built = createZonecronApp({
    app,
    synthTime: SYNTH_TIME,
    installations: [
      { config, stackName: options.stackName ?? 'Zonecron' },
      ...(options.more ?? []),
    ],
  });
  // Synthesizes the whole app, cdk-nag included: an unacknowledged finding throws here.
  const directory = app.synth().directory;
  const templates: Record<string, TemplateJson> = {};
  for (const installation of built.installations) {
    for (const stack of [installation.main, ...installation.shards]) {
      templates[stack.stackName] = JSON.parse(
        readFileSync(join(directory, stack.templateFile), 'utf8'),
      ) as TemplateJson;
    }
  }
  const installation = built.installations[0];
  if (installation === undefined) throw new Error('fixture built no installation');
  const jsonCheck = bundle
    ? checkCloudAssembly(directory, { kind: 'staged' })
    : checkCloudAssembly(directory, { kind: 'estimated', jobsJsonBytes: 0 });
  return {
    config,
    built,
    installation,
    template: Template.fromStack(installation.main),
    json: templates[installation.stackName] as TemplateJson,
    templates,
    allResources: resolvedResources(templates),
    directory,
    check: jsonCheck,
  };
}

function resolvedResources(templates: Record<string, TemplateJson>): Record<string, CfnResource> {
  const exports = new Map<string, unknown>();
  for (const template of Object.values(templates)) {
    for (const output of Object.values(template.Outputs ?? {})) {
      if (output.Export) exports.set(output.Export.Name, output.Value);
    }
  }
  const substitute = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(substitute);
    if (value === null || typeof value !== 'object') return value;
    const entries = Object.entries(value);
    const [first] = entries;
    if (entries.length === 1 && first?.[0] === 'Fn::ImportValue' && exports.has(String(first[1]))) {
      return exports.get(String(first[1]));
    }
    return Object.fromEntries(entries.map(([key, item]) => [key, substitute(item)]));
  };
  const all: Record<string, CfnResource> = {};
  for (const [stack, template] of Object.entries(templates)) {
    for (const [id, resource] of Object.entries(template.Resources)) {
      all[`${stack}/${id}`] = substitute(resource) as CfnResource;
    }
  }
  return all;
}

/** The resources of one type, by `<stack>/<logicalId>`, in every stack of the app. */
export function resourcesOfType(
  fixture: SynthesizedFixture,
  type: string,
): [string, CfnResource][] {
  return Object.entries(fixture.allResources).filter(([, resource]) => resource.Type === type);
}

/** The logical id CloudFormation knows a construct's L1 resource by (main stack). */
export function logicalIdOf(
  fixture: SynthesizedFixture,
  construct: { node: { defaultChild?: unknown } } | { node: object; logicalId?: unknown },
): string {
  const main = fixture.installation.main;
  const target = (construct as { node: { defaultChild?: unknown } }).node.defaultChild ?? construct;
  return main.getLogicalId(target as Parameters<typeof main.getLogicalId>[0]);
}
