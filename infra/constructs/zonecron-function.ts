import { join } from 'node:path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { type ICommandHooks, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { JobsBundle } from '../../functions/shared/jobs-bundle.ts';
import { FUNCTION_BUNDLING } from '../bundling.ts';
import { stageJobsBundle } from '../jobs-bundle-file.ts';
import { packageRoot } from '../package-root.ts';

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
 * A zonecron Lambda: a `NodejsFunction` bundled by the local esbuild (never Docker), arm64,
 * Node.js 24, ESM, with its own log group and its own role.
 *
 * The esbuild options are the dispatcher's (`infra/bundling.ts`, chosen by
 * measurement there): the AWS SDK v3 is bundled, because one minified file loads faster at
 * cold start than the runtime's own copy; the `createRequire` banner lets the bundled CommonJS
 * parts of the SDK find `require` inside an ESM file.
 *
 * The role is not the CDK default: that one attaches the AWS-managed
 * `AWSLambdaBasicExecutionRole`, which may write to every log group in the account. This
 * role may write to the function's own log group only; callers add the rest with grants.
 */
export class ZonecronFunction extends Construct {
  /** The Lambda function. */
  readonly function: NodejsFunction;
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

    this.function = new NodejsFunction(this, 'Function', {
      entry: join(PROJECT_ROOT, props.entry),
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
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
      bundling: {
        forceDockerBundling: false,
        format: OutputFormat.ESM,
        mainFields: ['module', 'main'],
        target: FUNCTION_BUNDLING.target,
        externalModules: [...FUNCTION_BUNDLING.externalModules],
        minify: FUNCTION_BUNDLING.minify,
        banner: FUNCTION_BUNDLING.banner,
        sourceMap: true,
        sourcesContent: false,
        ...(props.jobsBundle === undefined
          ? {}
          : { commandHooks: copyIntoBundle(stageJobsBundle(props.jobsBundle)) }),
      },
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
 * Bundling hooks that copy one staged file into the bundle's output folder.
 *
 * The asset's hash covers the output folder, so a changed jobs file changes the function's
 * code, and an unchanged one leaves the function alone.
 */
function copyIntoBundle(file: string): ICommandHooks {
  return {
    beforeBundling: () => [],
    beforeInstall: () => [],
    afterBundling: (_inputDir, outputDir) => [
      `cp ${JSON.stringify(file)} ${JSON.stringify(outputDir)}/`,
    ],
  };
}
