import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A running DynamoDB Local (the official jar) on a random loopback port. */
export interface DynamoDbLocal {
  readonly endpoint: string;
  stop(): Promise<void>;
}

/**
 * Finds a free TCP port on 127.0.0.1.
 *
 * The port is released before it is returned, so a race with another process is possible but
 * harmless in practice on a test machine.
 */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The launcher that binds DynamoDB Local to loopback (it has no option for it). */
const LOOPBACK_LAUNCHER = fileURLToPath(new URL('./LoopbackDynamoDbLocal.java', import.meta.url));

function emulatorDir(): string {
  const require = createRequire(import.meta.url);
  const pkg = require.resolve('amplify-dynamodb-simulator/package.json');
  return join(dirname(pkg), 'emulator');
}

async function waitUntilReady(endpoint: string, child: ChildProcess, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`dynamodb local exited early with code ${child.exitCode}`);
    }
    try {
      const res = await fetch(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': 'DynamoDB_20120810.ListTables',
          authorization:
            'AWS4-HMAC-SHA256 Credential=local/20200101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=x',
        },
        body: '{}',
      });
      if (res.status < 500) return;
    } catch (error) {
      lastError = error;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`dynamodb local did not start within ${timeoutMs} ms: ${String(lastError)}`);
}

/**
 * Starts DynamoDB Local from the jar inside `amplify-dynamodb-simulator`, with the machine's Java,
 * listening on 127.0.0.1 only, with its telemetry off.
 *
 * @example
 * const ddb = await startDynamoDbLocal();
 * // ddb.endpoint //=> 'http://127.0.0.1:41234'
 * await ddb.stop();
 */
export async function startDynamoDbLocal(): Promise<DynamoDbLocal> {
  const port = await freePort();
  const cwd = emulatorDir();
  const child = spawn(
    'java',
    [
      // The quick JIT only, and one GC thread: the JVM's optimising compiler and parallel GC
      // spent more CPU than they saved over a test run, on cores the tests need (the
      // integration tests: 18 s of Java CPU with them, 8 s without).
      '-XX:TieredStopAtLevel=1',
      '-XX:+UseSerialGC',
      '-Djava.library.path=./DynamoDBLocal_lib',
      '-cp',
      'DynamoDBLocal.jar',
      // Java's source launcher: DynamoDB Local, its connector bound to 127.0.0.1 only.
      LOOPBACK_LAUNCHER,
      '-inMemory',
      // DynamoDB Local otherwise reports each start to AWS over the network.
      '-disableTelemetry',
      '-port',
      String(port),
    ],
    { cwd, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(endpoint, child, 30_000);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`${(error as Error).message}\n${stderr}`);
  }
  return {
    endpoint,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
