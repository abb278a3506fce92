// Runs dynalite on its own thread, so the simulation's DynamoDB work (request parsing, the
// in-memory LevelDB) does not queue behind the dispatcher and the SDK on the main thread.
import { createRequire } from 'node:module';
import { parentPort } from 'node:worker_threads';

const dynalite = createRequire(import.meta.url)('dynalite');
const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });

server.once('error', (error) => parentPort?.postMessage({ error: String(error) }));
server.listen(0, '127.0.0.1', () => {
  parentPort?.postMessage({ port: server.address().port });
});
parentPort?.on('message', (message) => {
  if (message !== 'stop') return;
  server.closeAllConnections?.();
  server.close(() => parentPort?.postMessage({ stopped: true }));
});
