/**
 * The jobs file's settings for the stack as a whole: `alarms.topicArn`, `completion`,
 * `environment`, and the cap on jobs with dedicated alarms. Each wrong value is reported at its
 * file, line and column, with what is allowed.
 */
import { describe, expect, it } from 'vitest';
import { isConfigError, parseJobsConfig } from '../../../../infra/config/load-jobs.ts';

const HOME_LAMBDA = 'arn:aws:lambda:eu-west-1:123456789012:function:report';

function job(id: string, arn = HOME_LAMBDA, type = 'lambda', extra = ''): string {
  return `  - id: ${id}
    description: ${id}
    schedule: "0 3 * * *"
    timezone: Europe/Berlin
    target: { type: ${type}, arn: '${arn}' }
${extra}`;
}

function problems(text: string): string[] {
  try {
    parseJobsConfig(text, 'jobs.yaml');
  } catch (error) {
    if (isConfigError(error)) return error.message.split('\n');
    throw error;
  }
  return [];
}

describe('alarms.topicArn', () => {
  it('takes an existing topic', () => {
    const config = parseJobsConfig(
      `alarms:\n  topicArn: arn:aws:sns:eu-west-1:999999999999:oncall\njobs:\n${job('a')}`,
      'jobs.yaml',
    );
    expect(config.alarmTopicArn).toBe('arn:aws:sns:eu-west-1:999999999999:oncall');
  });

  it('refuses an ARN that is not a topic, at its line and column', () => {
    expect(problems(`alarms:\n  topicArn: arn:aws:sqs:eu-west-1:999999999999:q\njobs: []`)).toEqual(
      [
        "jobs.yaml:2:13: field 'alarms.topicArn': a 'sns' target needs an SNS topic ARN (arn:aws:sns:REGION:ACCOUNT:TOPIC), got an 'sqs' ARN",
      ],
    );
  });

  it('refuses a topic in another region than the targets: alarms only notify their own region', () => {
    const found = problems(
      `alarms:\n  topicArn: arn:aws:sns:us-east-1:123456789012:oncall\njobs:\n${job('a')}`,
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(
      /^jobs\.yaml:2:13: field 'alarms\.topicArn': CloudWatch alarms can only notify a topic in their own region; .* is in region us-east-1, but the stack's region is that of job 'a'/,
    );
  });
});

describe('completion', () => {
  it('creates invoke configs unless told otherwise', () => {
    expect(parseJobsConfig(`jobs:\n${job('a')}`, 'jobs.yaml').completion).toEqual({
      lambdaInvokeConfig: 'create',
      existingInvokeConfigs: [],
    });
  });

  it('names the functions managed elsewhere by function and qualifier, $LATEST when unqualified', () => {
    const config = parseJobsConfig(
      `completion:\n  existingInvokeConfigs: ['${HOME_LAMBDA}']\njobs:\n${job('a')}`,
      'jobs.yaml',
    );
    expect(config.completion.existingInvokeConfigs).toEqual([`${HOME_LAMBDA}:$LATEST`]);
  });

  it('refuses a listed function no enabled job targets, at the list entry', () => {
    expect(
      problems(
        `completion:\n  existingInvokeConfigs:\n    - ${HOME_LAMBDA}:live\njobs:\n${job('a')}`,
      ),
    ).toEqual([
      `jobs.yaml:3:7: field 'completion.existingInvokeConfigs[0]': '${HOME_LAMBDA}:live' is not the function and qualifier of any enabled lambda target (an unqualified ARN means $LATEST); list the ARN exactly as the jobs target it`,
    ]);
  });

  it('refuses a list together with lambdaInvokeConfig: existing, which says it of every function', () => {
    const found = problems(
      `completion:\n  lambdaInvokeConfig: existing\n  existingInvokeConfigs: ['${HOME_LAMBDA}']\njobs:\n${job('a')}`,
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toContain(
      "field 'completion.existingInvokeConfigs': lists functions whose invoke config is managed elsewhere",
    );
  });

  it('refuses an unknown mode with what is allowed', () => {
    expect(problems(`completion:\n  lambdaInvokeConfig: maybe\njobs: []`)).toEqual([
      "jobs.yaml:2:23: field 'completion.lambdaInvokeConfig': must be one of create, existing, got 'maybe'",
    ]);
  });
});

describe('where lambda and stepfunctions targets may be', () => {
  it('accepts them all in one account and region, and SQS, SNS and EventBridge targets anywhere', () => {
    const text = `jobs:\n${job('a')}${job('b', 'arn:aws:states:eu-west-1:123456789012:stateMachine:etl', 'stepfunctions')}${job('c', 'arn:aws:sqs:us-east-1:999999999999:q', 'sqs')}${job('d', 'arn:aws:events:ap-southeast-2:888888888888:event-bus/b', 'eventbridge')}`;
    expect(problems(text)).toEqual([]);
  });

  it('refuses a lambda target in another account than the first one, at its ARN', () => {
    const found = problems(
      `jobs:\n${job('a')}${job('b', 'arn:aws:lambda:eu-west-1:222222222222:function:other')}`,
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(
      /^jobs\.yaml:11:34: job 'b': field 'target\.arn': a lambda target must be in the account and region the stack is deployed to, because zonecron can only learn how its runs ended there; .* is in account 222222222222, region eu-west-1, but the stack's are those of job 'a' \(account 123456789012, region eu-west-1\)/,
    );
  });

  it('refuses a state machine in another region than environment: says', () => {
    const found = problems(
      `environment:\n  account: '123456789012'\n  region: eu-central-1\njobs:\n${job('a', 'arn:aws:states:eu-west-1:123456789012:stateMachine:etl', 'stepfunctions')}`,
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toContain(
      "but the stack's are those of the environment: setting (account 123456789012, region eu-central-1)",
    );
  });

  it('ignores a disabled job’s target: it gets no schedule and no completion wiring', () => {
    const text = `jobs:\n${job('a')}${job('b', 'arn:aws:lambda:us-east-1:222222222222:function:x', 'lambda', '    enabled: false\n')}`;
    expect(problems(text)).toEqual([]);
  });

  it('refuses an account id that is not twelve digits in quotes', () => {
    expect(problems(`environment:\n  account: 12345\n  region: eu-west-1\njobs: []`)).toEqual([
      "jobs.yaml:2:12: field 'environment.account': expected a 12-digit account id in quotes, like '123456789012', got 12345",
    ]);
  });
});

describe('alarm.dedicated', () => {
  it('allows 100 jobs with alarms of their own and refuses the 101st, saying why', () => {
    const jobs = Array.from({ length: 101 }, (_, i) =>
      job(
        `j${i}`,
        'arn:aws:sqs:eu-west-1:123456789012:q',
        'sqs',
        '    alarm: { dedicated: true }\n',
      ),
    ).join('');
    const found = problems(`jobs:\n${jobs}`);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(
      /^jobs\.yaml:\d+:\d+: job 'j100': field 'alarm\.dedicated': 101 enabled jobs have alarm\.dedicated: true, at most 100 may: each adds 5 or 6 CloudWatch alarms \(\$0\.10 a month each\)/,
    );
    const hundred = Array.from({ length: 100 }, (_, i) =>
      job(
        `j${i}`,
        'arn:aws:sqs:eu-west-1:123456789012:q',
        'sqs',
        '    alarm: { dedicated: true }\n',
      ),
    ).join('');
    expect(problems(`jobs:\n${hundred}`)).toEqual([]);
  });
});
