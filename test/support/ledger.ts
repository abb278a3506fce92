import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { inject, onTestFinished } from 'vitest';
import { ledgerTableDefinition } from '#ledger/index.ts';
import { instrument } from './ddb-faults.ts';

/** Dummy credentials every local emulator accepts. */
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;

/**
 * A DynamoDB client for a local emulator (DynamoDB Local, dynalite).
 *
 * @example
 * const client = localDynamoClient(inject('dynamoEndpoint'));
 */
export function localDynamoClient(endpoint: string, maxAttempts = 3): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: LOCAL_CREDENTIALS,
    maxAttempts,
  });
}

/**
 * Creates a fresh, uniquely named ledger table on a local DynamoDB and returns its name.
 *
 * Each test file (or test) makes its own table on the one DynamoDB Local of the run, so files
 * can run in parallel without seeing each other's items.
 *
 * @example
 * const client = localDynamoClient(inject('dynamoEndpoint'));
 * const tableName = await createLedgerTable(client, 'dispatch');
 * //=> 'ledger-dispatch-3f2a…'
 */
export async function createLedgerTable(client: DynamoDBClient, prefix = 'test'): Promise<string> {
  const tableName = `ledger-${prefix}-${randomUUID().slice(0, 8)}`;
  await client.send(new CreateTableCommand(ledgerTableDefinition(tableName)));
  return tableName;
}

/**
 * A fresh ledger table on DynamoDB Local, through a client that makes one attempt per request
 * and whose requests can be made to fail (`faults`); the client is dropped when the test ends.
 *
 * @example
 * const { client, faults, tableName } = await faultableLedgerTable('late-tick');
 * faults.fail(updating('dispatchedAt'), { when: 'after', error: throttled });
 */
export async function faultableLedgerTable(prefix: string) {
  const client = localDynamoClient(inject('dynamoEndpoint'), 1);
  onTestFinished(() => client.destroy());
  const faults = instrument(client);
  return { client, faults, tableName: await createLedgerTable(client, prefix) };
}
