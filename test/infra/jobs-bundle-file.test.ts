// The jobs bundle synth writes beside both Lambdas: this machine's zone data, the fingerprint of
// every enabled job and the offsets of its zone, computed once per jobs list and synth time
// (validate's offline synth asks for it twice).

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseJobsBundle, serializeJobsBundle, unpackFingerprints } from '#jobs/jobs-bundle.ts';
import { recordSchedules } from '#zone-drift/zone-drift.ts';
import { createJobsBundle } from '../../infra/packaging/jobs-bundle-file.ts';
import { makeJob } from '../support/jobs.ts';
import { DRIFT_JOBS, DRIFT_SYNTH_TIME, springMovedAWeek } from '../support/zone-drift.ts';

describe('createJobsBundle', () => {
  it("records this machine's zone data and platform, and each enabled job's fingerprint and zone", () => {
    const bundle = createJobsBundle(DRIFT_JOBS, { synthTime: DRIFT_SYNTH_TIME });
    const record = recordSchedules(DRIFT_JOBS, DRIFT_SYNTH_TIME);
    expect(bundle).toMatchObject({
      version: 2,
      jobs: DRIFT_JOBS,
      zoneDataVersion: process.versions.tz,
      platform: { node: process.version, icu: process.versions.icu },
      synthesizedAt: '2027-01-01T00:00:00.000Z',
      zones: record.zones,
    });
    expect(unpackFingerprints(DRIFT_JOBS, bundle.fingerprints)).toEqual(record.fingerprints);
  });

  it("records the zonecron package's version beside the zone data, and reads it back", () => {
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    const bundle = createJobsBundle(DRIFT_JOBS, { synthTime: DRIFT_SYNTH_TIME });
    expect(bundle.zonecronVersion).toBe(version);
    const text = Buffer.from(serializeJobsBundle(bundle));
    expect(parseJobsBundle(text, 'jobs.json').zonecronVersion).toBe(version);
    const { zonecronVersion: _v, ...older } = bundle;
    const olderText = Buffer.from(serializeJobsBundle(older));
    expect(parseJobsBundle(olderText, 'jobs.json')).not.toHaveProperty('zonecronVersion');
  });

  it('computes the bundle of one jobs list and synth time once', () => {
    const jobs = [makeJob({ id: 'daily', schedule: '0 9 * * *' })];
    const first = createJobsBundle(jobs, { synthTime: DRIFT_SYNTH_TIME });
    expect(createJobsBundle(jobs, { synthTime: new Date(DRIFT_SYNTH_TIME) })).toBe(first);
    expect(createJobsBundle(jobs, { synthTime: new Date('2027-01-02T00:00:00Z') })).not.toBe(first);
    expect(createJobsBundle([...jobs], { synthTime: DRIFT_SYNTH_TIME })).not.toBe(first);
  });

  it('computes under the rules it is given, as a machine with other zone data would', () => {
    const moved = createJobsBundle(DRIFT_JOBS, {
      synthTime: DRIFT_SYNTH_TIME,
      zoneRules: springMovedAWeek,
    });
    const record = recordSchedules(DRIFT_JOBS, DRIFT_SYNTH_TIME, { rules: springMovedAWeek });
    expect(moved.zones).toEqual(record.zones);
    expect(unpackFingerprints(DRIFT_JOBS, moved.fingerprints)).toEqual(record.fingerprints);
    expect(moved.fingerprints).not.toBe(
      createJobsBundle(DRIFT_JOBS, { synthTime: DRIFT_SYNTH_TIME }).fingerprints,
    );
  });
});
