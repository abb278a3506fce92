import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32, deflateRawSync } from 'node:zlib';

/**
 * A zip archive of the given files, deflated, as a Lambda deployment package is: enough of
 * the format (local headers, central directory, end record) for any unzip to read it.
 *
 * @example
 * zipArchive({ 'index.mjs': 'export {}', 'jobs.json': bundleText }).length //=> 312
 */
export function zipArchive(files: Readonly<Record<string, string>>): Buffer {
  const locals: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const [name, text] of Object.entries(files)) {
    const data = Buffer.from(text);
    const packed = deflateRawSync(data);
    const nameBytes = Buffer.from(name);
    const fields = { crc: crc32(data), packed: packed.length, size: data.length };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(fields.crc, 14);
    local.writeUInt32LE(fields.packed, 18);
    local.writeUInt32LE(fields.size, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4);
    entry.writeUInt16LE(20, 6);
    entry.writeUInt16LE(8, 10);
    entry.writeUInt32LE(fields.crc, 16);
    entry.writeUInt32LE(fields.packed, 20);
    entry.writeUInt32LE(fields.size, 24);
    entry.writeUInt16LE(nameBytes.length, 28);
    entry.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, packed);
    directory.push(entry, nameBytes);
    offset += local.length + nameBytes.length + packed.length;
  }
  const dir = Buffer.concat(directory);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(files).length, 8);
  end.writeUInt16LE(Object.keys(files).length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

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
