import type {
  CloudFormationClient,
  DescribeStacksCommandOutput,
} from '@aws-sdk/client-cloudformation';
import { CliError } from '../errors.ts';

/** The main stack's outputs the operating commands read (`infra/stacks/zonecron-stack.ts`, `outputs()`). */
export type StackOutputName =
  | 'LedgerTableName'
  | 'DeadLetterQueueUrl'
  | 'ScheduleGroupName'
  | 'AlarmTopicArn'
  | 'DispatcherFunctionName';

/** A deployed main stack, as CloudFormation describes it. */
export interface DeployedStack {
  /** The stack's name (also when it was looked up by its ARN). */
  readonly stackName: string;
  /** The stack's ARN (`StackId`). */
  readonly stackId: string;
  /** The region in the stack's ARN: where its table, queue and schedules live. */
  readonly region: string | undefined;
  readonly status: string;
  /** Every output, by key. */
  readonly outputs: ReadonlyMap<string, string>;
}

/** No stack of that name (or ARN) in the account and region asked. */
export class StackNotFoundError extends CliError {
  override readonly name: string = 'StackNotFoundError';
  readonly stackName: string;
  readonly region: string | undefined;

  constructor(stackName: string, region: string | undefined, options: { cause?: unknown } = {}) {
    super(
      `no CloudFormation stack '${stackName}' in ${region ? `region ${region}` : 'the default region'}` +
        ' (check --stack, ZONECRON_STACK, --region and the credentials)',
      options,
    );
    this.stackName = stackName;
    this.region = region;
  }
}

/** The stack exists but lacks an output a command needs (not a zonecron main stack, or an old one). */
export class StackOutputMissingError extends CliError {
  override readonly name: string = 'StackOutputMissingError';
  readonly stackName: string;
  readonly output: StackOutputName;
  readonly available: readonly string[];

  constructor(
    stackName: string,
    output: StackOutputName,
    available: readonly string[],
    flag?: string,
  ) {
    super(
      `stack '${stackName}' has no output ${output} (it has: ${available.join(', ') || 'none'});` +
        ` is it a zonecron main stack?${flag ? ` pass ${flag} instead` : ''}`,
    );
    this.stackName = stackName;
    this.output = output;
    this.available = available;
  }
}

/** The region in a CloudFormation stack ARN, `arn:aws:cloudformation:<region>:…`. */
function regionOfArn(arn: string): string | undefined {
  const region = arn.split(':')[3];
  return region === undefined || region === '' ? undefined : region;
}

/**
 * Reads one stack's name, region and outputs with `DescribeStacks`.
 *
 * `stack` is a name or a stack ARN. CloudFormation answers an unknown stack with a
 * `ValidationError` ("Stack with id … does not exist"), which becomes a
 * {@link StackNotFoundError}; every other failure propagates.
 *
 * @example
 * const stack = await describeStack(new CloudFormationClient({}), 'Zonecron', 'eu-west-1');
 * stack.outputs.get('LedgerTableName') //=> 'Zonecron-LedgerTable1A2B…'
 */
export async function describeStack(
  cloudFormation: Pick<CloudFormationClient, 'send'>,
  stack: string,
  region: string | undefined,
): Promise<DeployedStack> {
  const { DescribeStacksCommand } = await import('@aws-sdk/client-cloudformation');
  let found: DescribeStacksCommandOutput;
  try {
    found = await cloudFormation.send(new DescribeStacksCommand({ StackName: stack }));
  } catch (error) {
    const e = error as { name?: string; message?: string };
    if (e.name === 'ValidationError' && /does not exist/i.test(e.message ?? '')) {
      throw new StackNotFoundError(stack, regionOfArn(stack) ?? region, { cause: error });
    }
    throw error;
  }
  const described = found.Stacks?.[0];
  if (!described?.StackName) throw new StackNotFoundError(stack, regionOfArn(stack) ?? region);
  const outputs = new Map<string, string>();
  for (const o of described.Outputs ?? []) {
    if (o.OutputKey && o.OutputValue !== undefined) outputs.set(o.OutputKey, o.OutputValue);
  }
  const stackId = described.StackId ?? stack;
  return {
    stackName: described.StackName,
    stackId,
    region: regionOfArn(stackId) ?? region,
    status: described.StackStatus ?? 'UNKNOWN',
    outputs,
  };
}
