import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createLedgerStore, type LedgerStore } from '#ledger/index.ts';
import { createLedgerTable, localDynamoClient } from './ledger.ts';

/** The two DynamoDB emulators a ledger contract runs on, each with a way to make a fresh table. */
export interface ContractStores {
  /** `[name, open]` pairs for `describe.each`: `open()` makes a new table and its store. */
  readonly stores: [string, () => Promise<LedgerStore>][];
  stop(): Promise<void>;
}

/**
 * DynamoDB Local (the suite's, what the tests trust) and an in-process dynalite on a loopback
 * port (the simulation's and the sandbox's store): every expression a contract writes runs on
 * both.
 *
 * @example
 * const contract = await startContractStores(inject('dynamoEndpoint'));
 * describe.each(contract.stores)('on %s', (_name, open) => { … });
 */
export async function startContractStores(dynamoEndpoint: string): Promise<ContractStores> {
  const dynamoLocal = localDynamoClient(dynamoEndpoint);
  const factory = createRequire(import.meta.url)('dynalite') as (o: object) => Server;
  const dynalite = factory({ createTableMs: 0 });
  await new Promise<void>((resolve) => dynalite.listen(0, '127.0.0.1', resolve));
  const { port } = dynalite.address() as AddressInfo;
  const dynaliteClient = localDynamoClient(`http://127.0.0.1:${port}`);
  const open = (client: DynamoDBClient) => async () => {
    const tableName = await createLedgerTable(client, 'contract');
    // dynalite turns a new table ACTIVE a moment after CreateTable answers; until then it
    // refuses requests to it. DynamoDB Local's are ACTIVE at once.
    const describe = new DescribeTableCommand({ TableName: tableName });
    while ((await client.send(describe)).Table?.TableStatus !== 'ACTIVE') {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return createLedgerStore({ client, tableName });
  };
  return {
    stores: [
      ['DynamoDB Local', open(dynamoLocal)],
      ['dynalite', open(dynaliteClient)],
    ],
    async stop() {
      dynamoLocal.destroy();
      dynaliteClient.destroy();
      dynalite.closeAllConnections();
      await new Promise((resolve) => dynalite.close(resolve));
    },
  };
}
