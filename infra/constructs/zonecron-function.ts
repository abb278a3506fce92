import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AssetHashType,
  type BundlingOptions,
  DockerImage,
  Duration,
  type ILocalBundling,
  RemovalPolicy,
} from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { JOBS_BUNDLE_FILE, type JobsBundle, serializeJobsBundle } from '#jobs/jobs-bundle.ts';
import { bundleFunction, FUNCTION_HANDLER_FILE } from '../packaging/bundling.ts';
import { packageRoot } from '../packaging/package-root.ts';

/** The repository root: `package-lock.json` and the `functions/` entries live here. */
export const PROJECT_ROOT = packageRoot(import.meta.url);

/**
 * The newest Node.js runtime aws-cdk-lib 2.276 offers (`NODEJS_24_X`); cdk-nag's
 * `AwsSolutions-L1` checks the same thing.
 */
export const FUNCTION_RUNTIME = lambda.Runtime.NODEJS_24_X;

/** Properties of {@link ZonecronFunction}. */
export interface ZonecronFunctionProps {
  /** Entry file, relative to the repository root, e.g. `functions/dispatcher/handler.ts`. */
  readonly entry: string;
  /**
   * A fixed function name, for functions others must grant access to before they exist.
   *
   * @default - a name CloudFormation generates
   */
  readonly functionName?: string;
  /** What the function is for; shown in the Lambda console. */
  readonly description: string;
  /** Environment variables besides `NODE_OPTIONS`. */
  readonly environment: Record<string, string>;
  /**
   * Longest one invocation may run.
   *
   * @default Duration.seconds(60)
   */
  readonly timeout?: Duration;
  /**
   * Memory, in MB; on Lambda it also buys CPU.
   *
   * @default 512
   */
  readonly memorySizeMb?: number;
  /**
   * How long CloudWatch Logs keeps the function's log lines.
   *
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly logRetention?: logs.RetentionDays;
  /**
   * The jobs bundle to ship beside the handler as `jobs.json` (read at cold start).
   *
   * @default - none; the function runs with no jobs
   */
  readonly jobsBundle?: JobsBundle;
}

/**
 * A zonecron Lambda: bundled by the local esbuild at synth (never Docker) with
 * `bundleFunction` (`infra/packaging/bundling.ts`: ESM, minified, the AWS SDK bundled, chunks loaded on
 * demand), arm64, Node.js 24, with its own log group and its own role.
 *
 * A plain `lambda.Function` over a bundled asset rather than a `NodejsFunction`: the latter
 * writes one output file, and code splitting needs a folder. The asset's hash covers the
 * bundle and `jobs.json`, so a changed jobs file changes the function's code and an unchanged
 * one leaves it alone; stacks `cdk` does not bundle (`zonecron validate`, `cdk synth` of other
 * stacks) skip the work, as for any asset.
 *
 * The role is not the CDK default: that one attaches the AWS-managed
 * `AWSLambdaBasicExecutionRole`, which may write to every log group in the account. This
 * role may write to the function's own log group only; callers add the rest with grants.
 */
export class ZonecronFunction extends Construct {
  /** The Lambda function. */
  readonly function: lambda.Function;
  /** The function's execution role. */
  readonly role: iam.Role;
  /** The function's log group, with retention. */
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: ZonecronFunctionProps) {
    super(scope, id);
    this.logGroup = new logs.LogGroup(this, 'LogGroup', {
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of ${props.entry}`,
    });
    this.logGroup.grantWrite(this.role);

    this.function = new lambda.Function(this, 'Function', {
      code: bundledCode(props),
      handler: `${FUNCTION_HANDLER_FILE.replace(/\.mjs$/, '')}.handler`,
      ...(props.functionName === undefined ? {} : { functionName: props.functionName }),
      description: props.description,
      runtime: FUNCTION_RUNTIME,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memorySizeMb ?? 512,
      timeout: props.timeout ?? Duration.seconds(60),
      role: this.role,
      logGroup: this.logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
      environment: { NODE_OPTIONS: '--enable-source-maps', ...props.environment },
    });
    // cfn-lint W3005 ("dependency already enforced by a GetAtt"): lambda.Function always adds
    // a DependsOn on its role, which `Role: Fn::GetAtt` already implies. Redundant, harmless,
    // and CDK's to keep; acknowledged on this resource only (scripts/cfn-lint.ts).
    (this.function.node.defaultChild as lambda.CfnFunction).addMetadata('cfn-lint', {
      config: { ignore_checks: ['W3005'] },
    });
  }

  /** Lets a principal invoke the function (its unqualified ARN only). */
  grantInvoke(grantee: iam.IGrantable): iam.Grant {
    return iam.Grant.addToPrincipal({
      grantee,
      actions: ['lambda:InvokeFunction'],
      resourceArns: [this.function.functionArn],
    });
  }

  /** Invocations that ended in an error, summed per minute. */
  metricErrors(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.function.metricErrors({ period: Duration.minutes(1), ...props });
  }

  /** Invocations Lambda refused for lack of concurrency, summed per minute. */
  metricThrottles(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.function.metricThrottles({ period: Duration.minutes(1), ...props });
  }

  /** Invocation duration in milliseconds, the maximum per minute. */
  metricDurationMs(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.function.metricDuration({
      period: Duration.minutes(1),
      statistic: 'Maximum',
      ...props,
    });
  }
}

/**
 * The function's code: the handler bundled into the asset's output folder, `jobs.json`
 * beside it.
 */
function bundledCode(props: ZonecronFunctionProps): lambda.Code {
  return lambda.Code.fromAsset(PROJECT_ROOT, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: new LocalBundling(props.entry, props.jobsBundle),
  });
}

/**
 * Bundling on this machine; the Docker image is never used (`local.tryBundle` returns true).
 *
 * A class with the entry and a digest of the jobs as fields, because CDK reuses a staged
 * asset for every asset whose source path and options serialize alike: without them the
 * recorder would get the dispatcher's bundle, and a second installation the first one's jobs.
 */
class LocalBundling implements BundlingOptions {
  readonly image = DockerImage.fromRegistry('zonecron/bundling-is-local');
  readonly entry: string;
  readonly jobsDigest: string;
  readonly local: ILocalBundling;

  constructor(entry: string, jobsBundle: JobsBundle | undefined) {
    this.entry = entry;
    const jobsText = jobsBundle === undefined ? undefined : serializeJobsBundle(jobsBundle);
    this.jobsDigest = createHash('sha256')
      .update(jobsText ?? '')
      .digest('hex');
    this.local = {
      tryBundle(outputDir) {
        bundleFunction({
          entry: join(PROJECT_ROOT, entry),
          outDir: outputDir,
          workingDir: PROJECT_ROOT,
        });
        if (jobsText !== undefined) writeFileSync(join(outputDir, JOBS_BUNDLE_FILE), jobsText);
        return true;
      },
    };
  }
}
