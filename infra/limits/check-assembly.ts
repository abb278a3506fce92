/**
 * "Will it deploy": every AWS limit the synthesized app would meet at deploy time, checked on
 * the cloud assembly itself (every template CDK wrote, its assets), after `app.synth()`.
 *
 * `infra/app/main.ts` runs it on every synth and fails when anything is over; `zonecron validate`
 * runs the same code on an assembly synthesized without bundling, judging the Lambda packages
 * by the size of jobs.json instead. Sizes that depend on values known only at deploy time
 * (ARNs, names) are measured with the longest value those can take (`intrinsics.ts`).
 */
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { AWS_LIMITS, type LimitName } from './aws-limits.ts';
import { checkResource } from './resource-checks.ts';
import type { ResourceContext } from './resource-context.ts';
import { type LambdaCodeCheck, type LimitViolation, over } from './violation.ts';

export type { LambdaCodeCheck, LimitViolation };

/** What a template holds, for the synth summary and the cost estimate. */
export interface TemplateSummary {
  readonly stack: string;
  readonly file: string;
  readonly bytes: number;
  readonly resources: number;
  readonly outputs: number;
  readonly parameters: number;
  /** Resource counts by type. */
  readonly types: Readonly<Record<string, number>>;
}

/** The result of {@link checkCloudAssembly}. */
export interface AssemblyCheck {
  readonly violations: readonly LimitViolation[];
  readonly templates: readonly TemplateSummary[];
}

/** `asset.` and a SHA-256 in hex: the path synth writes for a bundled asset. */
const BUNDLED_ASSET_PATH_CHARS = 70;

interface Manifest {
  readonly artifacts?: Record<string, { type: string; properties?: Record<string, unknown> }>;
}

interface Template {
  readonly Description?: string;
  readonly Resources?: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
  readonly Outputs?: Record<string, unknown>;
  readonly Parameters?: Record<string, unknown>;
  readonly Mappings?: Record<string, unknown>;
}

/**
 * Checks every template of the cloud assembly in `directory` against `AWS_LIMITS`.
 *
 * @example
 * checkCloudAssembly(app.synth().directory, { kind: 'staged' }).violations //=> []
 */
export function checkCloudAssembly(directory: string, lambdaCode: LambdaCodeCheck): AssemblyCheck {
  const manifest = JSON.parse(readFileSync(join(directory, 'manifest.json'), 'utf8')) as Manifest;
  const violations: LimitViolation[] = [];
  const templates: TemplateSummary[] = [];
  const seen = new Map<string, string>();
  for (const [stack, artifact] of Object.entries(manifest.artifacts ?? {})) {
    if (artifact.type !== 'aws:cloudformation:stack') continue;
    const file = String(artifact.properties?.templateFile ?? `${stack}.template.json`);
    const assets = assetPaths(directory, manifest, stack);
    const total = checkTemplate(
      directory,
      stack,
      file,
      assets,
      { lambdaCode, seen },
      violations,
      templates,
    );
    if (total > AWS_LIMITS.resourcesPerOperation.max) {
      violations.push(over(file, '', 'resourcesPerOperation', total));
    }
  }
  return { violations, templates };
}

/** Checks one template and its nested templates; returns the resources of all of them. */
function checkTemplate(
  directory: string,
  stack: string,
  file: string,
  assets: ReadonlyMap<string, string>,
  shared: Pick<ResourceContext, 'lambdaCode' | 'seen'>,
  violations: LimitViolation[],
  templates: TemplateSummary[],
): number {
  const text = readFileSync(join(directory, file), 'utf8');
  const template = JSON.parse(text) as Template;
  const bytes = templateBytes(text, shared.lambdaCode);
  const resources = Object.entries(template.Resources ?? {});
  const counts = templateCounts(template, bytes);
  for (const [limit, count] of counts) {
    if (count > AWS_LIMITS[limit].max) violations.push(over(file, '', limit, count));
  }
  const types: Record<string, number> = {};
  const context: ResourceContext = {
    ...shared,
    file,
    template: template.Resources ?? {},
    assetPath: (hash) => {
      const relative = assets.get(hash);
      return relative === undefined ? undefined : join(directory, relative);
    },
    report: (violation) => violations.push(violation),
  };
  let total = resources.length;
  for (const [logicalId, resource] of resources) {
    types[resource.Type] = (types[resource.Type] ?? 0) + 1;
    if (logicalId.length > AWS_LIMITS.logicalIdChars.max) {
      violations.push(over(file, logicalId, 'logicalIdChars', logicalId.length));
    }
    checkResource(logicalId, resource, context);
    if (resource.Type === 'AWS::CloudFormation::Stack') {
      const nested = nestedTemplate(resource.Properties?.TemplateURL, assets);
      if (nested) {
        total += checkTemplate(directory, stack, nested, assets, shared, violations, templates);
      }
    }
  }
  templates.push({
    stack,
    file: basename(file),
    bytes,
    resources: resources.length,
    outputs: counts[1]?.[1] ?? 0,
    parameters: counts[2]?.[1] ?? 0,
    types,
  });
  return total;
}

/**
 * A template's size as deployed. Without bundling, an asset's path is its source folder; synth
 * writes `asset.<64 hex>`, so each unbundled asset path counts at that length.
 */
function templateBytes(text: string, lambdaCode: LambdaCodeCheck): number {
  const unbundledAssets =
    lambdaCode.kind === 'estimated' ? (text.match(/"aws:asset:path"/g)?.length ?? 0) : 0;
  return Buffer.byteLength(text, 'utf8') + unbundledAssets * BUNDLED_ASSET_PATH_CHARS;
}

/** The template-wide counts AWS limits: resources, outputs, parameters, mappings, sizes. */
function templateCounts(template: Template, bytes: number): [LimitName, number][] {
  return [
    ['resources', Object.keys(template.Resources ?? {}).length],
    ['outputs', Object.keys(template.Outputs ?? {}).length],
    ['parameters', Object.keys(template.Parameters ?? {}).length],
    ['mappings', Object.keys(template.Mappings ?? {}).length],
    ['templateBytes', bytes],
    ['templateDescriptionBytes', Buffer.byteLength(template.Description ?? '', 'utf8')],
  ];
}

/** Asset hash → path in the assembly, from the stack's asset manifest. */
function assetPaths(directory: string, manifest: Manifest, stack: string): Map<string, string> {
  const paths = new Map<string, string>();
  for (const artifact of Object.values(manifest.artifacts ?? {})) {
    if (artifact.type !== 'cdk:asset-manifest') continue;
    const file = String(artifact.properties?.file ?? '');
    if (!file.startsWith(`${stack}.assets`)) continue;
    const assets = JSON.parse(readFileSync(join(directory, file), 'utf8')) as {
      files?: Record<string, { source?: { path?: string } }>;
    };
    for (const [hash, asset] of Object.entries(assets.files ?? {})) {
      if (asset.source?.path) paths.set(hash, asset.source.path);
    }
  }
  return paths;
}

/** The file of a nested stack's template, from the asset hash in its `TemplateURL`. */
function nestedTemplate(url: unknown, assets: ReadonlyMap<string, string>): string | undefined {
  const hash = /([0-9a-f]{64})\.json/.exec(JSON.stringify(url ?? ''))?.[1];
  return hash === undefined ? undefined : assets.get(hash);
}
