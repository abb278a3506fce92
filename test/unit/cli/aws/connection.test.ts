import {
  CloudFormationClient,
  CloudFormationServiceException,
  DescribeStacksCommand,
} from '@aws-sdk/client-cloudformation';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { connect } from '../../../../cli/aws/connection.ts';
import { StackNotFoundError, StackOutputMissingError } from '../../../../cli/aws/stack-outputs.ts';
import { CliError } from '../../../../cli/errors.ts';

// CloudFormation has no emulator here: DescribeStacks answers from a stub, as AWS would.
const cloudFormation = mockClient(CloudFormationClient);
afterEach(() => cloudFormation.reset());

const STACK_ARN =
  'arn:aws:cloudformation:eu-west-1:123456789012:stack/Prod-Zonecron/0f3e2a10-8c1b-11ef-9f0e-0a1b2c3d4e5f';
const OUTPUTS = {
  LedgerTableName: 'Prod-Zonecron-LedgerTable1A2B3C4D-XYZ',
  DeadLetterQueueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/Prod-Zonecron-Dlq',
  ScheduleGroupName: 'Prod-Zonecron',
};
/** A connection environment with nothing set, so the machine's variables never leak in. */
const NO_ENV = {};

function stackAnswers(outputs: Record<string, string>) {
  cloudFormation.on(DescribeStacksCommand).resolves({
    Stacks: [
      {
        StackName: 'Prod-Zonecron',
        StackId: STACK_ARN,
        StackStatus: 'UPDATE_COMPLETE',
        CreationTime: new Date('2026-01-01T00:00:00Z'),
        Outputs: Object.entries(outputs).map(([OutputKey, OutputValue]) => ({
          OutputKey,
          OutputValue,
        })),
      },
    ],
  });
}

describe('connect: --stack resolved from CloudFormation outputs', () => {
  it('takes the table, the DLQ URL, the region and the stack name from one DescribeStacks', async () => {
    stackAnswers(OUTPUTS);
    const connection = await connect({ stack: 'Prod-Zonecron', region: 'eu-west-1' }, NO_ENV);
    expect(connection.tableName()).toBe(OUTPUTS.LedgerTableName);
    expect(connection.dlqUrl()).toBe(OUTPUTS.DeadLetterQueueUrl);
    expect(connection.stackName).toBe('Prod-Zonecron');
    expect(connection.region).toBe('eu-west-1');
    expect(connection.output('ScheduleGroupName')).toBe('Prod-Zonecron');
    expect(cloudFormation.commandCalls(DescribeStacksCommand)[0]?.args[0].input).toEqual({
      StackName: 'Prod-Zonecron',
    });
    connection.destroy();
  });

  it('reads the region from a stack ARN given in ZONECRON_STACK when --region is absent', async () => {
    stackAnswers(OUTPUTS);
    const connection = await connect({}, { ZONECRON_STACK: STACK_ARN });
    expect(connection.region).toBe('eu-west-1');
    expect(connection.stackName).toBe('Prod-Zonecron');
    expect(await connection.clients.dynamodb.config.region()).toBe('eu-west-1');
    connection.destroy();
  });

  it('lets --table and --dlq-url override the outputs, and --stack override the ZONECRON_TABLE variable', async () => {
    stackAnswers(OUTPUTS);
    const explicit = await connect(
      { stack: 'Prod-Zonecron', region: 'eu-west-1', table: 'mine', dlqUrl: 'http://q/mine' },
      NO_ENV,
    );
    expect([explicit.tableName(), explicit.dlqUrl()]).toEqual(['mine', 'http://q/mine']);
    const fromFlag = await connect(
      { stack: 'Prod-Zonecron', region: 'eu-west-1' },
      { ZONECRON_TABLE: 'from-env' },
    );
    expect(fromFlag.tableName()).toBe(OUTPUTS.LedgerTableName);
    const fromEnv = await connect(
      { region: 'eu-west-1' },
      { ZONECRON_STACK: 'Prod-Zonecron', ZONECRON_TABLE: 'from-env' },
    );
    expect(fromEnv.tableName()).toBe('from-env');
    for (const c of [explicit, fromFlag, fromEnv]) c.destroy();
  });

  it('fails with StackNotFoundError, naming the stack and region, when CloudFormation has no such stack', async () => {
    cloudFormation.on(DescribeStacksCommand).rejects(
      new CloudFormationServiceException({
        name: 'ValidationError',
        $fault: 'client',
        $metadata: {},
        message: 'Stack with id Nope does not exist',
      }),
    );
    const failure = await connect({ stack: 'Nope', region: 'eu-west-1' }, NO_ENV).catch((e) => e);
    expect(failure).toBeInstanceOf(StackNotFoundError);
    expect(failure).toMatchObject({ stackName: 'Nope', region: 'eu-west-1', exitCode: 1 });
    expect(failure.message).toBe(
      "no CloudFormation stack 'Nope' in region eu-west-1 (check --stack, ZONECRON_STACK, --region and the credentials)",
    );
  });

  it('fails with StackOutputMissingError, listing the outputs it has, when the stack lacks the one needed', async () => {
    stackAnswers({ ScheduleGroupName: 'Other' });
    const connection = await connect({ stack: 'Prod-Zonecron', region: 'eu-west-1' }, NO_ENV);
    const failure = (() => {
      try {
        return connection.tableName();
      } catch (error) {
        return error;
      }
    })();
    expect(failure).toBeInstanceOf(StackOutputMissingError);
    expect(failure).toMatchObject({
      stackName: 'Prod-Zonecron',
      output: 'LedgerTableName',
      available: ['ScheduleGroupName'],
    });
    connection.destroy();
  });

  it('without a stack or a table, is a usage error (exit 2) that names --stack and --table, and asks CloudFormation nothing', async () => {
    const connection = await connect({ region: 'eu-west-1' }, NO_ENV);
    expect(connection.stackName).toBe('Zonecron');
    expect(() => connection.tableName()).toThrow(CliError);
    expect(() => connection.tableName()).toThrow(
      'no ledger table: pass --stack <name> (or set ZONECRON_STACK), or --table <name> (or set ZONECRON_TABLE)',
    );
    const error = (() => {
      try {
        connection.dlqUrl();
      } catch (e) {
        return e as CliError;
      }
    })();
    expect(error?.exitCode).toBe(2);
    expect(() => connection.output('ScheduleGroupName')).toThrow(
      'no stack output ScheduleGroupName: pass --stack <name> (or set ZONECRON_STACK)',
    );
    expect(cloudFormation.commandCalls(DescribeStacksCommand)).toHaveLength(0);
    connection.destroy();
  });
});
