import { inflateRawSync } from 'node:zlib';
import { CliError } from '../errors.ts';

/**
 * Where one file lies in a zip archive, as its central directory says: enough to fetch only
 * that file's bytes with one HTTP range request.
 */
export interface ZipEntryRange {
  readonly name: string;
  /** Offset of the entry's local header in the archive. */
  readonly startOffset: number;
  /** Offset just past its data: the next entry's local header, or the central directory. */
  readonly endOffset: number;
  /** 0 stored, 8 deflated. */
  readonly method: number;
  readonly compressedBytes: number;
}

/** The archive is not a zip this reader understands, or lacks the file asked for. */
export class ZipEntryError extends CliError {
  override readonly name: string = 'ZipEntryError';
  readonly entry: string;
  constructor(entry: string, reason: string) {
    super(`cannot read ${entry} from the zip archive: ${reason}`);
    this.entry = entry;
  }
}

const END_OF_DIRECTORY = 0x06054b50;
const DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
/** The end-of-central-directory record without its comment, in bytes. */
const END_RECORD_BYTES = 22;
/** The most the end of an archive may hold after its central directory: the record and a comment. */
export const ZIP_TAIL_BYTES = END_RECORD_BYTES + 0xffff;

/**
 * Finds `name` in the central directory of an archive of `totalBytes`, given its last bytes
 * (`tail`, at least the central directory and the end record; {@link ZIP_TAIL_BYTES} more
 * than the directory is always enough).
 *
 * @example
 * findZipEntry(tail, 1_204_311, 'jobs.json')
 * //=> { name: 'jobs.json', startOffset: 1_180_044, endOffset: 1_203_950, method: 8, … }
 */
export function findZipEntry(tail: Buffer, totalBytes: number, name: string): ZipEntryRange {
  const tailStart = totalBytes - tail.length;
  const end = tail.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0 || tail.readUInt32LE(end) !== END_OF_DIRECTORY) {
    throw new ZipEntryError(name, 'no end-of-central-directory record');
  }
  const count = tail.readUInt16LE(end + 10);
  const directoryOffset = tail.readUInt32LE(end + 16);
  if (count === 0xffff || directoryOffset === 0xffffffff) {
    throw new ZipEntryError(name, 'zip64 archives are not read');
  }
  let at = directoryOffset - tailStart;
  if (at < 0) throw new ZipEntryError(name, 'the central directory lies before the bytes read');
  const starts: number[] = [];
  let found: Omit<ZipEntryRange, 'endOffset'> | undefined;
  for (let i = 0; i < count; i++) {
    if (tail.readUInt32LE(at) !== DIRECTORY_ENTRY) {
      throw new ZipEntryError(name, `central directory entry ${i} is damaged`);
    }
    const nameBytes = tail.readUInt16LE(at + 28);
    const skip = nameBytes + tail.readUInt16LE(at + 30) + tail.readUInt16LE(at + 32);
    const startOffset = tail.readUInt32LE(at + 42);
    starts.push(startOffset);
    if (tail.toString('utf8', at + 46, at + 46 + nameBytes) === name) {
      const method = tail.readUInt16LE(at + 10);
      found = { name, startOffset, method, compressedBytes: tail.readUInt32LE(at + 20) };
    }
    at += 46 + skip;
  }
  if (!found) throw new ZipEntryError(name, `the archive has no file ${name}`);
  const startOffset = found.startOffset;
  const endOffset = Math.min(directoryOffset, ...starts.filter((s) => s > startOffset));
  return { ...found, endOffset };
}

/**
 * The file's contents, from the archive's bytes `[entry.startOffset, entry.endOffset)`.
 *
 * @example
 * readZipEntry(bytes, findZipEntry(tail, size, 'jobs.json')).toString('utf8') //=> '{"version":2,…'
 */
export function readZipEntry(bytes: Buffer, entry: ZipEntryRange): Buffer {
  if (bytes.readUInt32LE(0) !== LOCAL_HEADER) {
    throw new ZipEntryError(entry.name, 'its local header is damaged');
  }
  const dataStart = 30 + bytes.readUInt16LE(26) + bytes.readUInt16LE(28);
  const data = bytes.subarray(dataStart, dataStart + entry.compressedBytes);
  if (entry.method === 0) return data;
  if (entry.method === 8) return inflateRawSync(data);
  throw new ZipEntryError(entry.name, `compression method ${entry.method} is not read`);
}
