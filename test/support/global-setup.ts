import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from './dynamodb-local.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Endpoint of the DynamoDB Local shared by the whole run, e.g. http://127.0.0.1:41234. */
    dynamoEndpoint: string;
  }
}

/** Starts one DynamoDB Local for the whole test run and stops it afterwards. */
export default async function setup(project: TestProject) {
  const ddb = await startDynamoDbLocal();
  project.provide('dynamoEndpoint', ddb.endpoint);
  return async () => {
    await ddb.stop();
  };
}
