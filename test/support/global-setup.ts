import type { TestProject } from 'vitest/node';
import { type DynamoDbLocal, startDynamoDbLocal } from './dynamodb-local.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Endpoint of the DynamoDB Local shared by the whole run, e.g. http://127.0.0.1:41234. */
    dynamoEndpoint: string;
  }
}

/** The one DynamoDB Local of the run and how many projects still use it. */
interface Shared {
  readonly started: Promise<DynamoDbLocal>;
  users: number;
}

/**
 * Where the projects' setups find the DynamoDB Local another project started: each project
 * loads this file on its own, in vitest's main process, so a module variable would not be
 * shared, and a second jar would cost a JVM start (4 s of CPU).
 */
const KEY = Symbol.for('zonecron.test.dynamoDbLocal');
const registry = globalThis as { [KEY]?: Shared };

/**
 * What a run without DynamoDB Local provides instead of an endpoint: the SDK refuses it as an
 * invalid URL that says why.
 */
const NOT_STARTED = 'not-started:ZONECRON_TEST_DYNAMODB_LOCAL=0';

/**
 * Starts one DynamoDB Local for the whole test run, shared by every project that lists this
 * file, and stops it once the last of them is done. `ZONECRON_TEST_DYNAMODB_LOCAL=0` starts
 * none, for runs of files that read no ledger (npm test's second, zone-sensitive run): the JVM
 * would cost 3 s of CPU and hold the workers back until it answers.
 */
export default async function setup(project: TestProject) {
  if (process.env.ZONECRON_TEST_DYNAMODB_LOCAL === '0') {
    project.provide('dynamoEndpoint', NOT_STARTED);
    return;
  }
  const shared = registry[KEY] ?? { started: startDynamoDbLocal(), users: 0 };
  registry[KEY] = shared;
  shared.users += 1;
  const ddb = await shared.started;
  project.provide('dynamoEndpoint', ddb.endpoint);
  return async () => {
    shared.users -= 1;
    if (shared.users > 0) return;
    delete registry[KEY];
    await ddb.stop();
  };
}
