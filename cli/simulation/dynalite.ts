import { Worker } from 'node:worker_threads';

/** An in-process DynamoDB (dynalite, in memory) on a random loopback port. */
export interface EmbeddedDynamo {
  /** e.g. `http://127.0.0.1:41234` */
  readonly endpoint: string;
  stop(): Promise<void>;
}

type WorkerMessage = { port: number } | { error: string } | { stopped: true };

/**
 * Starts dynalite inside this process, on a worker thread: pure Node, no Java, nothing left
 * behind, and its CPU work runs beside the dispatcher's instead of in turn with it.
 *
 * Tables become ACTIVE at once (`createTableMs: 0`), so the simulation never waits.
 *
 * @example
 * const db = await startEmbeddedDynamo();
 * // db.endpoint //=> 'http://127.0.0.1:41234'
 * await db.stop();
 */
export async function startEmbeddedDynamo(): Promise<EmbeddedDynamo> {
  const worker = new Worker(new URL('./dynalite-worker.mjs', import.meta.url));
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`dynalite exited with code ${code}`)));
    worker.once('message', (message: WorkerMessage) => {
      if ('port' in message) resolve(message.port);
      else if ('error' in message) reject(new Error(`dynalite did not start: ${message.error}`));
    });
  });
  worker.removeAllListeners('exit');
  let stopped: Promise<void> | undefined;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        worker.once('message', () => resolve());
        worker.once('exit', () => resolve());
        worker.postMessage('stop');
      }).then(async () => {
        await worker.terminate();
      });
      return stopped;
    },
  };
}
