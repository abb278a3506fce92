// Every zone the platform knows, every transition from 1970 through 2037, against the
// platform's own offsets read here, not through the engine's formatter: local wall time from
// formatToParts minus the instant (at transitions), and `shortOffset` names (elsewhere).
//
// Why no transition can be missed unseen. Between two consecutive reported transitions T and
// T' the engine claims one offset v. The test reads the platform at T (must be v) and at
// T' - 1 minute (must be v), and likewise at both ends of the range. So a change the engine
// missed cannot persist to the next reported transition: the platform must return to v first,
// an excursion of two or more changes inside one segment. Such an excursion lies between two
// of the engine's daily samples, so it lasts less than a day (see ZoneTable; property-tested
// with arbitrary rules in engine-zone-rules.test.ts). No sampling can exclude a shorter one
// (Intl answers one instant at a time), so the test looks where one is likeliest and keeps a
// margin:
// - every hour of the day before and the day after each transition: the nights clocks change
//   are where a second, short change would come (standard time and DST changed at different
//   hours of one night);
// - every 6 days elsewhere, less than the shortest offset of the tz database since 1970
//   (167 hours, parts of Brazil in October 2000): this alone would catch a missed offset as
//   short as that, without relying on the engine's sampling;
// - no offset in the range lasts less than 3 days, three sampling steps: a tz release that
//   brings offsets near the step fails here before one can hide between two samples.
import { describe, expect, it } from 'vitest';
import { createEngine, type ZoneTransition } from '../../../functions/schedule/index.ts';

const FROM_MS = Date.UTC(1970, 0, 1);
const TO_MS = Date.UTC(2038, 0, 1);
const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
const ZONES = Intl.supportedValuesOf('timeZone');

/** The offset at an instant, in minutes east of UTC, floored: local wall time minus UTC. */
function wallClockOffsetMinutes(formatter: Intl.DateTimeFormat, ms: number): number {
  const part: Record<string, number> = {};
  for (const { type, value } of formatter.formatToParts(ms)) part[type] = Number(value);
  const wallMs = Date.UTC(
    part.year as number,
    (part.month as number) - 1,
    part.day as number,
    part.hour as number,
    part.minute as number,
    part.second as number,
  );
  return Math.floor((wallMs - ms) / MINUTE_MS);
}

/** The offset at an instant read from a `shortOffset` name (`GMT`, `GMT+5:30`, `GMT-0:44:30`). */
function shortOffsetMinutes(formatter: Intl.DateTimeFormat, ms: number): number {
  const text = formatter.format(ms);
  const match = /GMT(?:([+-])(\d+)(?::(\d\d))?(?::(\d\d))?)?$/.exec(text);
  if (match === null) throw new Error(`unexpected offset text '${text}'`);
  if (match[1] === undefined) return 0;
  const seconds = Number(match[2]) * 3600 + Number(match[3] ?? 0) * 60 + Number(match[4] ?? 0);
  return Math.floor((match[1] === '-' ? -seconds : seconds) / 60);
}

function formattersOf(zone: string) {
  return {
    wallClock: new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      hourCycle: 'h23',
    }),
    shortOffset: new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'shortOffset' }),
  };
}

const HOUR_MS = 3_600_000;
const GRID_MS = 6 * DAY_MS;
const SHORTEST_OFFSET_MS = 3 * DAY_MS;

/** The offset the engine claims at an instant: the last transition at or before it decides. */
function claimedOffset(transitions: ZoneTransition[], firstOffset: number, ms: number): number {
  let low = 0;
  let high = transitions.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((transitions[middle] as ZoneTransition).at.getTime() <= ms) low = middle + 1;
    else high = middle;
  }
  return low === 0 ? firstOffset : (transitions[low - 1] as ZoneTransition).offsetAfterMinutes;
}

/** Every way the engine's view of a zone differs from the platform's, as readable lines. */
function disagreements(zone: string): string[] {
  const { wallClock, shortOffset } = formattersOf(zone);
  const transitions = createEngine().zoneTransitions(zone, new Date(FROM_MS), new Date(TO_MS));
  const firstOffset = wallClockOffsetMinutes(wallClock, FROM_MS);
  const found: string[] = [];
  const check = (what: string, ms: number, actual: number) => {
    const claimed = claimedOffset(transitions, firstOffset, ms);
    if (claimed !== actual) {
      found.push(`${what} ${new Date(ms).toISOString()}: engine ${claimed}, platform ${actual}`);
    }
  };
  let previous = { atMs: FROM_MS, offset: firstOffset };
  for (const t of transitions) {
    const atMs = t.at.getTime();
    if (
      t.offsetBeforeMinutes !== previous.offset ||
      t.offsetBeforeMinutes === t.offsetAfterMinutes
    ) {
      found.push(`transition at ${t.at.toISOString()} does not follow on ${previous.offset}`);
    }
    if (previous.atMs > FROM_MS && atMs - previous.atMs < SHORTEST_OFFSET_MS) {
      found.push(`offset ${previous.offset} lasts only ${(atMs - previous.atMs) / HOUR_MS} hours`);
    }
    check(
      'minute before the transition at',
      atMs - MINUTE_MS,
      wallClockOffsetMinutes(wallClock, atMs - MINUTE_MS),
    );
    check('transition at', atMs, wallClockOffsetMinutes(wallClock, atMs));
    for (let ms = atMs - DAY_MS; ms <= atMs + DAY_MS; ms += HOUR_MS) {
      if (ms !== atMs) check('hour near a transition,', ms, shortOffsetMinutes(shortOffset, ms));
    }
    previous = { atMs, offset: t.offsetAfterMinutes };
  }
  check('end of the range,', TO_MS, wallClockOffsetMinutes(wallClock, TO_MS));
  for (let ms = FROM_MS + DAY_MS / 2; ms < TO_MS; ms += GRID_MS) {
    check('grid point', ms, shortOffsetMinutes(shortOffset, ms));
  }
  return found;
}

describe('the engine against the platform, every zone, 1970 through 2037', () => {
  it(`knows ${ZONES.length} zones, among them the ones the DST tables use`, () => {
    expect(ZONES.length).toBeGreaterThan(400);
    expect(ZONES).toEqual(expect.arrayContaining(['Europe/Berlin', 'Pacific/Apia']));
  });

  it.each(ZONES)(
    '%s: every transition is minute-exact, none is missing, no offset lasts under 3 days',
    (zone) => {
      expect(disagreements(zone)).toEqual([]);
    },
  );
});
