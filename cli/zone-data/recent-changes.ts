/**
 * Recent changes to future UTC offsets in the IANA time-zone database, by release: the zones
 * where two copies of the database are most likely to disagree, because one of them predates
 * the change.
 *
 * Curated by hand from each release's NEWS file (cited per entry), not read from the platform:
 * the platform can only show the rules it has, so it cannot tell that a newer release changed
 * them — which is exactly the case to warn about (a deploying machine with tz 2025c knows
 * nothing of British Columbia's 2026 decision). Each entry names one instant where the release
 * and the data before it disagree and the offset the release gives there;
 * test/unit/cli/zone-data/recent-changes.test.ts checks that this machine's data agrees with
 * every entry it is new enough to carry, and disagrees with every other.
 *
 * Kept small on purpose: changes to whole zones' future offsets, not one-year predictions
 * (Palestine's Ramadan dates) or history. Add an entry with each tz release that changes a
 * zone's future offsets.
 */

/** One release's change to some zones' future offsets. */
export interface ZoneRuleChange {
  /** The tz release that first carried it, e.g. `2026b`. */
  readonly release: string;
  /** The release's date, `YYYY-MM-DD`, as its NEWS entry gives it. */
  readonly releasedOn: string;
  /** The zones it changed, canonical IANA names. */
  readonly zones: readonly string[];
  /** What changed, in one sentence. */
  readonly summary: string;
  /** UTC ISO instant from which data before the release and data from it disagree. */
  readonly differsFrom: string;
  /** An instant where they disagree, and the offset (minutes east of UTC) the release gives. */
  readonly check: { readonly at: string; readonly offsetMinutes: number };
  /** The release's NEWS. */
  readonly source: string;
}

const news = (release: string) => `https://github.com/eggert/tz/blob/${release}/NEWS`;

/** The table, oldest release first. */
export const RECENT_ZONE_CHANGES: readonly ZoneRuleChange[] = [
  {
    release: '2023a',
    releasedOn: '2023-03-22',
    zones: ['Africa/Cairo'],
    summary:
      "Egypt observes DST again, from April's last Friday to October's last Thursday, from 2023 on.",
    differsFrom: '2023-04-27T22:00:00Z',
    check: { at: '2023-07-01T12:00:00Z', offsetMinutes: 180 },
    source: news('2023a'),
  },
  {
    release: '2023d',
    releasedOn: '2023-12-21',
    zones: ['America/Scoresbysund'],
    summary:
      'Ittoqqortoormiit, Greenland, moves from -01/+00 to -02/-01 on 2024-03-31, so it does not spring forward that day.',
    differsFrom: '2024-03-31T01:00:00Z',
    check: { at: '2024-07-01T12:00:00Z', offsetMinutes: -60 },
    source: news('2023d'),
  },
  {
    release: '2024a',
    releasedOn: '2024-02-01',
    zones: ['Asia/Almaty', 'Asia/Qostanay'],
    summary: 'Kazakhstan unifies on +05: its eastern part leaves +06 on 2024-03-01.',
    differsFrom: '2024-02-29T18:00:00Z',
    check: { at: '2024-06-01T12:00:00Z', offsetMinutes: 300 },
    source: news('2024a'),
  },
  {
    release: '2025a',
    releasedOn: '2025-01-15',
    zones: ['America/Asuncion'],
    summary: 'Paraguay stays on -03 all year: no fall back on 2025-03-22 or after.',
    differsFrom: '2025-03-23T03:00:00Z',
    check: { at: '2025-07-01T12:00:00Z', offsetMinutes: -180 },
    source: news('2025a'),
  },
  {
    release: '2025b',
    releasedOn: '2025-03-22',
    zones: ['America/Coyhaique'],
    summary:
      "Chile's Aysén Region stays on -03 all year, apart from America/Santiago; older data has no America/Coyhaique at all.",
    differsFrom: '2025-04-06T03:00:00Z',
    check: { at: '2025-07-01T12:00:00Z', offsetMinutes: -180 },
    source: news('2025b'),
  },
  {
    release: '2026a',
    releasedOn: '2026-03-01',
    zones: ['Europe/Chisinau'],
    summary:
      'Moldova has changed its clocks at EU times (01:00 UTC) since 2022, an hour later than older data says.',
    differsFrom: '2022-03-27T00:00:00Z',
    check: { at: '2027-03-28T00:30:00Z', offsetMinutes: 120 },
    source: news('2026a'),
  },
  {
    release: '2026b',
    releasedOn: '2026-04-22',
    zones: ['America/Vancouver'],
    summary: 'British Columbia stays on -07 all year: no fall back on 2026-11-01 or after.',
    differsFrom: '2026-11-01T09:00:00Z',
    check: { at: '2027-01-15T12:00:00Z', offsetMinutes: -420 },
    source: news('2026b'),
  },
  {
    release: '2026c',
    releasedOn: '2026-07-08',
    zones: ['America/Edmonton'],
    summary: 'Alberta stays on -06 all year: no fall back on 2026-11-01 or after.',
    differsFrom: '2026-11-01T08:00:00Z',
    check: { at: '2027-01-15T12:00:00Z', offsetMinutes: -360 },
    source: news('2026c'),
  },
  {
    release: '2026c',
    releasedOn: '2026-07-08',
    zones: ['Africa/Casablanca', 'Africa/El_Aaiun'],
    summary: 'Morocco and Western Sahara move to +00 without DST on 2026-09-20.',
    differsFrom: '2026-09-20T01:00:00Z',
    check: { at: '2027-01-15T12:00:00Z', offsetMinutes: 0 },
    source: news('2026c'),
  },
  {
    release: '2026d',
    releasedOn: '2026-09-11',
    zones: ['America/Inuvik'],
    summary:
      "Northwest Territories' Inuvik stays on -06 all year: no fall back on 2026-11-01 or after.",
    differsFrom: '2026-11-01T08:00:00Z',
    check: { at: '2027-01-15T12:00:00Z', offsetMinutes: -360 },
    source: news('2026d'),
  },
];
