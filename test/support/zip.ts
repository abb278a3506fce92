import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A local HTTP server for one object, serving byte ranges as S3 does, and the ranges asked. */
export interface ObjectServer {
  readonly url: string;
  /** Every `Range` header received, in order (`undefined` for a request without one). */
  readonly ranges: (string | undefined)[];
  stop(): Promise<void>;
}

/**
 * Serves `body` at a URL as S3 serves a pre-signed GET: `Range: bytes=a-b` and `bytes=-n`
 * answer 206 with `Content-Range`, no range answers 200.
 *
 * @example
 * const server = await serveObject(zipArchive({ 'jobs.json': '{}' }));
 * (await fetch(server.url, { headers: { Range: 'bytes=-22' } })).status //=> 206
 */
export async function serveObject(body: Buffer): Promise<ObjectServer> {
  const ranges: (string | undefined)[] = [];
  const server: Server = createServer((request, response) => {
    const range = request.headers.range;
    ranges.push(range);
    const match = /^bytes=(\d*)-(\d*)$/.exec(range ?? '');
    if (!match) {
      response.writeHead(200, { 'Content-Length': body.length });
      response.end(body);
      return;
    }
    const [start, end] = match[1]
      ? [Number(match[1]), Math.min(Number(match[2] || body.length - 1), body.length - 1)]
      : [Math.max(0, body.length - Number(match[2])), body.length - 1];
    response.writeHead(206, {
      'Content-Length': end - start + 1,
      'Content-Range': `bytes ${start}-${end}/${body.length}`,
    });
    response.end(body.subarray(start, end + 1));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/awslambda-us-east-1-tasks/snapshots/dispatcher.zip?X-Amz-Signature=x`,
    ranges,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
