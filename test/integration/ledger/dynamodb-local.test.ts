// The DynamoDB Local every ledger test shares (test/support/global-setup.ts) answers on
// loopback and nowhere else: DynamoDB Local has no option for the address it listens on, so
// test/support/LoopbackDynamoDbLocal.java binds its connector to 127.0.0.1.
import { connect } from 'node:net';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { localDynamoClient } from '../../support/ledger.ts';

/** Whether a TCP connection to `host:port` is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('the DynamoDB Local of the test run', () => {
  const endpoint = new URL(inject('dynamoEndpoint'));
  const port = Number(endpoint.port);

  it('answers DynamoDB requests at its endpoint on 127.0.0.1', async () => {
    expect(endpoint.hostname).toBe('127.0.0.1');
    const tables = await localDynamoClient(endpoint.href).send(new ListTablesCommand({}));
    expect(tables.TableNames).toBeInstanceOf(Array);
  });

  // On Linux (the machines this suite runs on) all of 127.0.0.0/8 reaches the loopback
  // interface: a server listening on every address accepts 127.0.0.2, one bound to 127.0.0.1
  // refuses it.
  it('refuses connections to its port on 127.0.0.2', async () => {
    expect(await accepts('127.0.0.1', port)).toBe(true);
    expect(await accepts('127.0.0.2', port)).toBe(false);
  });
});
