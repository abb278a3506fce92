// The table of recent tz changes against this machine's own copy of the database: every entry
// the copy is new enough to carry must agree with it at the entry's check instant, and every
// entry it is too old for must disagree (or, for a zone the release created, be unknown). On a
// Node.js with newer zone data the same test holds with other entries on each side.
import { describe, expect, it } from 'vitest';
import { compareZoneDataVersions, zoneDataVersion } from '#zone-drift/zone-fingerprint.ts';
import { RECENT_ZONE_CHANGES } from '../../../../cli/zone-data/recent-changes.ts';
import { intlZoneRules, validateTimeZone } from '../../../../functions/schedule/index.ts';

const platformOffset = (zone: string, iso: string): number | 'unknown zone' => {
  try {
    validateTimeZone(zone);
  } catch {
    return 'unknown zone';
  }
  return intlZoneRules.offsetMinutesAt(zone, Date.parse(iso) / 60_000);
};

describe('RECENT_ZONE_CHANGES', () => {
  it.each(
    RECENT_ZONE_CHANGES.flatMap((change) =>
      change.zones.map((zone) => [change.release, zone, change] as const),
    ),
  )(
    '%s %s: this machine agrees at the check instant exactly when its data has the release',
    (release, zone, change) => {
      const carried = (compareZoneDataVersions(zoneDataVersion(), release) ?? -1) >= 0;
      const offset = platformOffset(zone, change.check.at);
      if (carried) expect(offset).toBe(change.check.offsetMinutes);
      else expect(offset).not.toBe(change.check.offsetMinutes);
    },
  );

  it('lists releases oldest first, each disagreeing no later than its check instant', () => {
    const releases = RECENT_ZONE_CHANGES.map((c) => c.release);
    const sorted = [...releases].sort((a, b) => compareZoneDataVersions(a, b) ?? 0);
    expect(releases).toEqual(sorted);
    for (const change of RECENT_ZONE_CHANGES) {
      expect(Date.parse(change.differsFrom)).toBeLessThanOrEqual(Date.parse(change.check.at));
      expect(change.releasedOn).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(change.source).toBe(`https://github.com/eggert/tz/blob/${change.release}/NEWS`);
    }
  });
});
