/**
 * The environment the stack gives the dispatcher, with placeholder values: enough for the
 * bundled handler to load (benchmarks of its module load; nothing is called).
 *
 * @example
 * spawnSync(process.execPath, ['--input-type=module', '-e', `await import('${outfile}')`],
 *   { env: dispatcherEnv() });
 */
export function dispatcherEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    LEDGER_TABLE_NAME: 'ledger',
    DLQ_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/dlq',
    NOTIFY_TOPIC_ARN: 'arn:aws:sns:eu-west-1:123456789012:on-call',
    STACK_NAME: 'Bench',
    AWS_REGION: 'eu-west-1',
  };
}
