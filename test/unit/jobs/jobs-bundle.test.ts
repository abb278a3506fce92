import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  emptyJobsBundle,
  InvalidJobsBundleError,
  type JobsBundle,
  openJobsBundle,
  packFingerprints,
  serializeJobsBundle,
  unpackFingerprints,
} from '#jobs/jobs-bundle.ts';
import { createJobsBundle } from '../../../infra/packaging/jobs-bundle-file.ts';
import { makeJob } from '../../support/jobs.ts';

const JOBS = [
  makeJob({ id: 'daily' }),
  makeJob({ id: 'say "hi"\\ ü', payload: { note: '\n{"id":"daily","schedule":"* * * * *"' } }),
  makeJob({ id: 'weekly', schedule: '0 3 * * 1' }),
];

const BUNDLE: JobsBundle = {
  ...emptyJobsBundle(),
  jobs: JOBS,
  zoneDataVersion: '2025c',
  fingerprints: packFingerprints(JOBS, { daily: '0123456789abcdef' }),
  synthesizedAt: '2026-11-30T00:00:00.000Z',
};

function fileWith(text: string): URL {
  const path = join(mkdtempSync(join(tmpdir(), 'zonecron-bundle-')), 'jobs.json');
  writeFileSync(path, text);
  return pathToFileURL(path);
}

describe('jobs bundle file', () => {
  it('is valid JSON that parses back to the bundle', () => {
    expect(JSON.parse(serializeJobsBundle(BUNDLE))).toEqual(BUNDLE);
  });

  it('looks up each job by id, ids with quotes, backslashes and non-ASCII included', () => {
    const { catalog } = openJobsBundle(fileWith(serializeJobsBundle(BUNDLE)));
    for (const job of JOBS) expect(catalog.get(job.id)).toEqual(job);
    expect(catalog.get('absent')).toBeUndefined();
  });

  it('is not fooled by a payload that spells out another job line', () => {
    const { catalog } = openJobsBundle(fileWith(serializeJobsBundle(BUNDLE)));
    expect(catalog.get('daily')?.schedule).toBe(JOBS[0]?.schedule);
  });

  it('parses only the line of the job looked up: a damaged line elsewhere does not matter', () => {
    const text = serializeJobsBundle(BUNDLE).replace('"id":"weekly",', '"id":"weekly",oops');
    const { catalog } = openJobsBundle(fileWith(text));
    expect(catalog.get('daily')).toEqual(JOBS[0]);
    expect(() => catalog.all()).toThrow(SyntaxError);
  });

  it('lists every job in file order and reads the header', () => {
    const bundle = openJobsBundle(fileWith(serializeJobsBundle(BUNDLE)));
    expect(bundle.catalog.all()).toEqual(JOBS);
    const { jobs: _jobs, ...header } = BUNDLE;
    expect(bundle.header()).toEqual(header);
  });

  it('is an empty catalog when no file sits beside the handler', () => {
    const { catalog } = openJobsBundle(pathToFileURL(join(tmpdir(), 'no-such-dir', 'jobs.json')));
    expect(catalog.all()).toEqual([]);
    expect(catalog.get('daily')).toBeUndefined();
  });

  it('refuses a file of another bundle version, naming the file', () => {
    const url = fileWith(JSON.stringify({ version: 1, jobs: [] }));
    expect(() => openJobsBundle(url).catalog.get('daily')).toThrow(InvalidJobsBundleError);
    expect(() => openJobsBundle(url).catalog.get('daily')).toThrow(url.pathname);
  });
});

describe('packFingerprints and unpackFingerprints', () => {
  const jobs = [
    makeJob({ id: 'daily', schedule: '0 9 * * *' }),
    makeJob({ id: 'off', schedule: '0 9 * * *', enabled: false }),
    makeJob({ id: 'hourly', schedule: '0 * * * *' }),
  ];

  it('pack each job its 16 digits in job order, dashes where it has none, and unpack them by id', () => {
    const byJob = { hourly: '0123456789abcdef', daily: 'fedcba9876543210' };
    const packed = packFingerprints(jobs, byJob);
    expect(packed).toBe(`fedcba9876543210${'-'.repeat(16)}0123456789abcdef`);
    expect(unpackFingerprints(jobs, packed)).toEqual(byJob);
  });

  it('unpack nothing from a string without one place per job, as from a bundle before fingerprints', () => {
    expect(unpackFingerprints(jobs, '')).toEqual({});
    expect(unpackFingerprints(jobs, '0123456789abcdef')).toEqual({});
  });

  it("reads back what synth wrote: the zone-data version and platform, enabled jobs' fingerprints, zones", () => {
    const bundle = createJobsBundle(jobs, { synthTime: new Date('2027-01-01T00:00:00Z') });
    const opened = openJobsBundle(fileWith(serializeJobsBundle(bundle)));
    const { jobs: _jobs, ...header } = JSON.parse(JSON.stringify(bundle));
    expect(opened.header()).toEqual(header);
    expect(Object.keys(unpackFingerprints(jobs, opened.header().fingerprints))).toEqual([
      'daily',
      'hourly',
    ]);
  });

  it('reads a bundle written before the zone-data record as having none', () => {
    const text = serializeJobsBundle({ ...BUNDLE, fingerprints: {} as unknown as string });
    const stripped = text.replace(/"platform":\{[^}]*\},/, '').replace('"zones":{},', '');
    expect(openJobsBundle(fileWith(stripped)).header()).toMatchObject({
      platform: { node: 'unknown', icu: 'unknown' },
      fingerprints: '',
      zones: {},
    });
  });
});
