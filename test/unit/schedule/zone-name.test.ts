// validateTimeZone: which zone names are accepted as written, and what a refused one is told
// (docs/semantics.md, "Time zones").
import { describe, expect, it } from 'vitest';
import {
  InvalidTimeZoneError,
  type TimeZoneProblem,
  validateTimeZone,
} from '../../../functions/schedule/index.ts';

const ALLOWED = '(allowed an IANA zone name such as Europe/Berlin)';

function refusal(zone: string): InvalidTimeZoneError {
  try {
    validateTimeZone(zone);
  } catch (error) {
    if (error instanceof InvalidTimeZoneError) return error;
    throw error;
  }
  throw new Error(`expected '${zone}' to be refused`);
}

describe('validateTimeZone accepts, unchanged', () => {
  it.each([
    ['a place', 'Europe/Berlin'],
    ['a place three levels deep', 'America/Argentina/Buenos_Aires'],
    ['a place whose name has lowercase words', 'America/Port-au-Prince'],
    ['UTC', 'UTC'],
    ['Etc/UTC, the zone UTC links to', 'Etc/UTC'],
    ['a link to a place under its old name', 'Asia/Calcutta'],
    ['the current name of a place that Node 20 lists under its old one', 'Asia/Kolkata'],
    ['a backward-compatible link', 'US/Eastern'],
  ])('%s: %s', (_name, zone) => {
    expect(validateTimeZone(zone)).toBe(zone);
  });
});

describe('validateTimeZone refuses, saying why and what to write', () => {
  it.each<{ zone: string; problem: TimeZoneProblem; suggestion?: string; message: string }>([
    {
      zone: 'europe/berlin',
      problem: 'case',
      suggestion: 'Europe/Berlin',
      message: `invalid time zone 'europe/berlin': wrong case; did you mean 'Europe/Berlin'? ${ALLOWED}`,
    },
    {
      zone: 'EUROPE/BERLIN',
      problem: 'case',
      suggestion: 'Europe/Berlin',
      message: `invalid time zone 'EUROPE/BERLIN': wrong case; did you mean 'Europe/Berlin'? ${ALLOWED}`,
    },
    {
      zone: 'utc',
      problem: 'case',
      suggestion: 'UTC',
      message: `invalid time zone 'utc': wrong case; did you mean 'UTC'? ${ALLOWED}`,
    },
    {
      zone: 'us/eastern',
      problem: 'case',
      suggestion: 'America/New_York',
      message: `invalid time zone 'us/eastern': wrong case; did you mean 'America/New_York'? ${ALLOWED}`,
    },
    {
      zone: 'EST',
      problem: 'abbreviation',
      suggestion: 'America/New_York',
      message: `invalid time zone 'EST': an abbreviation, not a place; the platform reads it as America/Panama, UTC-05:00 all year; did you mean 'America/New_York'? ${ALLOWED}`,
    },
    {
      zone: 'CET',
      problem: 'abbreviation',
      suggestion: 'Europe/Berlin',
      message: `invalid time zone 'CET': an abbreviation, not a place; the platform reads it as Europe/Brussels; did you mean 'Europe/Berlin'? ${ALLOWED}`,
    },
    {
      zone: 'MST7MDT',
      problem: 'abbreviation',
      suggestion: 'America/Denver',
      message: `invalid time zone 'MST7MDT': an abbreviation, not a place; did you mean 'America/Denver'? ${ALLOWED}`,
    },
    {
      zone: 'PST8PDT',
      problem: 'abbreviation',
      suggestion: 'America/Los_Angeles',
      message: `invalid time zone 'PST8PDT': an abbreviation, not a place; did you mean 'America/Los_Angeles'? ${ALLOWED}`,
    },
    {
      zone: 'BST',
      problem: 'abbreviation',
      suggestion: 'Europe/London',
      message: `invalid time zone 'BST': an abbreviation, not a place; the platform reads it as Asia/Dhaka, UTC+06:00 all year; did you mean 'Europe/London'? ${ALLOWED}`,
    },
    {
      zone: 'Etc/GMT+5',
      problem: 'fixed-offset',
      message: `invalid time zone 'Etc/GMT+5': a fixed offset, UTC-05:00 all year (Etc/GMT signs are inverted), and fixed offsets are not allowed ${ALLOWED}`,
    },
    {
      zone: 'Etc/GMT-14',
      problem: 'fixed-offset',
      message: `invalid time zone 'Etc/GMT-14': a fixed offset, UTC+14:00 all year (Etc/GMT signs are inverted), and fixed offsets are not allowed ${ALLOWED}`,
    },
    {
      zone: '+01:00',
      problem: 'fixed-offset',
      message: `invalid time zone '+01:00': fixed offsets are not allowed ${ALLOWED}`,
    },
    {
      zone: 'UTC+1',
      problem: 'fixed-offset',
      message: `invalid time zone 'UTC+1': fixed offsets are not allowed ${ALLOWED}`,
    },
    {
      zone: 'GMT',
      problem: 'utc-alias',
      suggestion: 'UTC',
      message: `invalid time zone 'GMT': another name of UTC, which is not the time in the United Kingdom (Europe/London, on BST in summer); did you mean 'UTC'? ${ALLOWED}`,
    },
    {
      zone: 'Etc/Zulu',
      problem: 'utc-alias',
      suggestion: 'UTC',
      message: `invalid time zone 'Etc/Zulu': another name of UTC; did you mean 'UTC'? ${ALLOWED}`,
    },
    {
      zone: 'Japan',
      problem: 'legacy-alias',
      suggestion: 'Asia/Tokyo',
      message: `invalid time zone 'Japan': an old name the tz database keeps for compatibility; did you mean 'Asia/Tokyo'? ${ALLOWED}`,
    },
    {
      zone: 'Europe/Berln',
      problem: 'unknown',
      suggestion: 'Europe/Berlin',
      message: `unknown time zone 'Europe/Berln'; did you mean 'Europe/Berlin'? ${ALLOWED}`,
    },
    {
      zone: 'America/NewYork',
      problem: 'unknown',
      suggestion: 'America/New_York',
      message: `unknown time zone 'America/NewYork'; did you mean 'America/New_York'? ${ALLOWED}`,
    },
    {
      zone: 'New York',
      problem: 'unknown',
      suggestion: 'America/New_York',
      message: `unknown time zone 'New York'; did you mean 'America/New_York'? ${ALLOWED}`,
    },
    {
      zone: 'Europe/Atlantis',
      problem: 'unknown',
      message: `unknown time zone 'Europe/Atlantis' ${ALLOWED}`,
    },
    {
      zone: '',
      problem: 'invalid',
      message: `invalid time zone '' ${ALLOWED}`,
    },
  ])('$zone: $problem', ({ zone, problem, suggestion, message }) => {
    const error = refusal(zone);
    expect(error.message).toBe(message);
    expect([error.zone, error.problem, error.suggestion]).toEqual([zone, problem, suggestion]);
  });

  it('cuts a long unknown name short in the message, and keeps it whole in the data', () => {
    const zone = `Europe/${'x'.repeat(200)}`;
    const error = refusal(zone);
    expect(error.message).toBe(`unknown time zone 'Europe/${'x'.repeat(52)}…' ${ALLOWED}`);
    expect(error.zone).toBe(zone);
  });
});
