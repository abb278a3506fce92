import {
  ConditionalCheckFailedException,
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  QueryCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { ledgerTableDefinition } from '#ledger/index.ts';
import { IN_PROCESS_MIDDLEWARE, startEmbeddedDynamo } from '../../../../cli/simulation/dynalite.ts';

const db = startEmbeddedDynamo();
const clientOptions = {
  endpoint: db.endpoint,
  requestHandler: db.requestHandler,
  signer: db.signer,
  region: 'local',
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  maxAttempts: 1,
};
/** Through the SDK's serialising and parsing, to the request handler. */
const wire = new DynamoDBClient(clientOptions);
/** Straight to dynalite, through the middleware. */
const direct = new DynamoDBClient(clientOptions);
direct.middlewareStack.add(db.middleware, IN_PROCESS_MIDDLEWARE);
afterAll(async () => {
  wire.destroy();
  direct.destroy();
  await db.stop();
});

const TABLE = 'embedded-dynamo-test';
const ready = (async () => {
  await wire.send(new CreateTableCommand(ledgerTableDefinition(TABLE)));
  while (
    (await direct.send(new DescribeTableCommand({ TableName: TABLE }))).Table?.TableStatus !==
    'ACTIVE'
  ) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
})();

const withoutMetadata = ({ $metadata: _, ...rest }: { $metadata: unknown }) => rest;

/** A claim-like conditional write of item `key`, refused once the item exists. */
const claim = (key: string, at: string) =>
  new UpdateItemCommand({
    TableName: TABLE,
    Key: { pk: { S: key } },
    UpdateExpression: 'SET #at = :at ADD #attempts :one',
    ConditionExpression: 'attribute_not_exists(#pk)',
    ExpressionAttributeNames: { '#pk': 'pk', '#at': 'at', '#attempts': 'attempts' },
    ExpressionAttributeValues: { ':at': { S: at }, ':one': { N: '1' } },
    ReturnValues: 'ALL_NEW',
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  });

describe('the in-process DynamoDB', () => {
  it('answers a command through the middleware as through the request handler', async () => {
    await ready;
    const viaWire = await wire.send(claim('run#a', '2027-03-28T01:30:00.000Z'));
    const viaDirect = await direct.send(claim('run#b', '2027-03-28T01:30:00.000Z'));
    expect(withoutMetadata(viaDirect)).toEqual({
      Attributes: { ...viaWire.Attributes, pk: { S: 'run#b' } },
    });
    const read = (client: DynamoDBClient) =>
      client.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: 'run#a' } } }));
    expect(withoutMetadata(await read(direct))).toEqual(withoutMetadata(await read(wire)));
  });

  it('refuses a failed condition with a ConditionalCheckFailedException that holds the refusing item', async () => {
    await ready;
    await direct.send(claim('run#c', '2027-03-28T02:30:00.000Z'));
    const refusal = await direct.send(claim('run#c', '2027-03-28T03:30:00.000Z')).catch((e) => e);
    expect(refusal).toBeInstanceOf(ConditionalCheckFailedException);
    expect(refusal.$fault).toBe('client');
    expect(refusal.Item).toEqual({
      pk: { S: 'run#c' },
      at: { S: '2027-03-28T02:30:00.000Z' },
      attempts: { N: '1' },
    });
  });

  it('refuses an invalid request through the middleware with the error the request handler gives', async () => {
    await ready;
    const invalid = new QueryCommand({
      TableName: TABLE,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': 'pk', '#unused': 'x' },
      ExpressionAttributeValues: { ':pk': { S: 'run#a' } },
    });
    const viaWire = await wire.send(invalid).catch((e) => e);
    const viaDirect = await direct.send(invalid).catch((e) => e);
    expect(viaDirect.name).toBe('ValidationException');
    expect([viaDirect.name, viaDirect.message]).toEqual([viaWire.name, viaWire.message]);
  });
});
