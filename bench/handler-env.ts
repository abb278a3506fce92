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
    // Node 20 here makes the SDK print a deprecation warning at load, which Lambda's Node 24
    // never prints; it would add tens of milliseconds that no deployed function pays.
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
}
