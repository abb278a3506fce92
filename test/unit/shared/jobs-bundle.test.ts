// The jobs bundle beside each Lambda: fingerprints packed one per job in job order (so that
// parsing 10,000 of them costs the cold start next to nothing), and bundles written before the
// zone-data record still load.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  loadJobsBundle,
  packFingerprints,
  unpackFingerprints,
} from '../../../functions/shared/jobs-bundle.ts';
import { createJobsBundle, writeJobsBundle } from '../../../infra/jobs-bundle-file.ts';
import { makeJob } from '../../support/jobs.ts';

const JOBS = [
  makeJob({ id: 'daily', schedule: '0 9 * * *' }),
  makeJob({ id: 'off', schedule: '0 9 * * *', enabled: false }),
  makeJob({ id: 'hourly', schedule: '0 * * * *' }),
];

describe('packFingerprints and unpackFingerprints', () => {
  it('pack each job its 16 digits in job order, dashes where it has none, and unpack them by id', () => {
    const byJob = { hourly: '0123456789abcdef', daily: 'fedcba9876543210' };
    const packed = packFingerprints(JOBS, byJob);
    expect(packed).toBe(`fedcba9876543210${'-'.repeat(16)}0123456789abcdef`);
    expect(unpackFingerprints(JOBS, packed)).toEqual(byJob);
  });

  it('unpack nothing from a string without one place per job, as from a bundle before fingerprints', () => {
    expect(unpackFingerprints(JOBS, '')).toEqual({});
    expect(unpackFingerprints(JOBS, '0123456789abcdef')).toEqual({});
  });
});

describe('loadJobsBundle', () => {
  it('reads back what synth wrote: the jobs, the zone-data version and platform, fingerprints and zones', () => {
    const bundle = createJobsBundle(JOBS, { synthTime: new Date('2027-01-01T00:00:00Z') });
    const file = writeJobsBundle(mkdtempSync(join(tmpdir(), 'zonecron-bundle-')), bundle);
    const loaded = loadJobsBundle(pathToFileURL(file));
    expect(loaded).toEqual(JSON.parse(JSON.stringify(bundle)));
    expect(Object.keys(unpackFingerprints(loaded.jobs, loaded.fingerprints))).toEqual([
      'daily',
      'hourly',
    ]);
  });

  it('loads a bundle written before the zone-data record with none', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'zonecron-bundle-')), 'jobs.json');
    writeFileSync(file, JSON.stringify({ version: 1, jobs: JOBS, fingerprints: {} }));
    expect(loadJobsBundle(pathToFileURL(file))).toMatchObject({
      zoneDataVersion: 'unknown',
      platform: { node: 'unknown', icu: 'unknown' },
      fingerprints: '',
      zones: {},
      synthesizedAt: '',
    });
  });
});
