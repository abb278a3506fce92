import { describe, expect, it } from 'vitest';
import { findZipEntry, readZipEntry, ZipEntryError } from '../../../../cli/deployed/zip-entry.ts';
import { zipArchive } from '../../../../cli/sandbox/zip-archive.ts';

const archive = zipArchive({ 'index.mjs': 'export {};\n', 'jobs.json': '{"version":2,"jobs":[]}' });

describe('findZipEntry and readZipEntry', () => {
  it('reads one file from the whole archive, and from its last bytes and its own range', () => {
    const entry = findZipEntry(archive, archive.length, 'jobs.json');
    const bytes = archive.subarray(entry.startOffset, entry.endOffset);
    expect(readZipEntry(bytes, entry).toString()).toBe('{"version":2,"jobs":[]}');
    const tail = archive.subarray(entry.endOffset);
    expect(findZipEntry(tail, archive.length, 'jobs.json')).toEqual(entry);
  });

  it('refuses an archive without the file, and bytes that are no zip, naming the file', () => {
    expect(() => findZipEntry(archive, archive.length, 'missing.json')).toThrow(
      'cannot read missing.json from the zip archive: the archive has no file missing.json',
    );
    const notZip = Buffer.from('{"version":2}');
    expect(() => findZipEntry(notZip, notZip.length, 'jobs.json')).toThrow(ZipEntryError);
  });
});
