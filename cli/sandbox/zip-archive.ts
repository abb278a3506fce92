import { crc32, deflateRawSync } from 'node:zlib';

const LOCAL_HEADER = 0x04034b50;
const DIRECTORY_ENTRY = 0x02014b50;
const END_OF_DIRECTORY = 0x06054b50;
/** Version 2.0 of the format: what any unzip reads. */
const VERSION = 20;
/** Compression method 8: deflate, as a Lambda deployment package's files are. */
const DEFLATE = 8;

/**
 * A zip archive of `files`, each deflated, as a Lambda deployment package is: local headers,
 * the central directory and its end record, what any unzip and `cli/deployed/zip-entry.ts`
 * read.
 *
 * Why: the sandbox serves its dispatcher's package as Lambda serves one, so `describe --stack`
 * reads `jobs.json` out of a real archive with range requests; the tests of that reader build
 * their packages with it too.
 *
 * @example
 * zipArchive({ 'jobs.json': '{"version":2,…}' }).readUInt32LE(0) //=> 0x04034b50
 */
export function zipArchive(files: Readonly<Record<string, string | Buffer>>): Buffer {
  const parts: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const [name, contents] of Object.entries(files)) {
    const data = Buffer.from(contents);
    const packed = deflateRawSync(data);
    const nameBytes = Buffer.from(name, 'utf8');
    const sums = { crc: crc32(data), packed: packed.length, bytes: data.length };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(LOCAL_HEADER, 0);
    local.writeUInt16LE(VERSION, 4);
    local.writeUInt16LE(DEFLATE, 8);
    local.writeUInt32LE(sums.crc, 14);
    local.writeUInt32LE(sums.packed, 18);
    local.writeUInt32LE(sums.bytes, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(DIRECTORY_ENTRY, 0);
    entry.writeUInt16LE(VERSION, 4);
    entry.writeUInt16LE(VERSION, 6);
    entry.writeUInt16LE(DEFLATE, 10);
    entry.writeUInt32LE(sums.crc, 16);
    entry.writeUInt32LE(sums.packed, 20);
    entry.writeUInt32LE(sums.bytes, 24);
    entry.writeUInt16LE(nameBytes.length, 28);
    entry.writeUInt32LE(offset, 42);
    parts.push(local, nameBytes, packed);
    directory.push(entry, nameBytes);
    offset += local.length + nameBytes.length + packed.length;
  }
  const central = Buffer.concat(directory);
  const count = Object.keys(files).length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(END_OF_DIRECTORY, 0);
  end.writeUInt16LE(count, 8);
  end.writeUInt16LE(count, 10);
  end.writeUInt32LE(central.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, central, end]);
}
