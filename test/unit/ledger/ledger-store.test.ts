import type { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { av, createLedgerStore, UpdateExpression } from '#ledger/index.ts';

describe('createLedgerStore', () => {
  it('sends an update without its actions: they are for whoever wraps the store', async () => {
    const sent: UpdateItemCommand['input'][] = [];
    const client = {
      send: async (command: UpdateItemCommand) => {
        sent.push(command.input);
        return {};
      },
    } as unknown as Parameters<typeof createLedgerStore>[0]['client'];
    const store = createLedgerStore({ client, tableName: 'ledger' });
    const u = new UpdateExpression().set('watermarkAt', av.s('2027-03-28T01:30:00.000Z'));
    await store.update({ key: 'job#daily', ...u.build() });
    expect(sent).toEqual([
      {
        TableName: 'ledger',
        Key: { pk: { S: 'job#daily' } },
        UpdateExpression: 'SET #watermarkAt = :watermarkAt',
        ExpressionAttributeNames: { '#watermarkAt': 'watermarkAt' },
        ExpressionAttributeValues: { ':watermarkAt': { S: '2027-03-28T01:30:00.000Z' } },
      },
    ]);
  });
});
