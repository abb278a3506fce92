/**
 * Which time zone names zonecron accepts: the one check behind jobs.yaml's `timezone`, the
 * CLI's `--tz` and every engine call (docs/semantics.md, "Time zones").
 *
 * Accepted, exactly as written: the IANA name of a place, `Area/Location` in the tz
 * database's spelling (`Europe/Berlin`, `America/Argentina/Buenos_Aires`), including the older
 * names the database keeps as links (`Asia/Calcutta`, `US/Eastern`), which name the same place
 * and follow the same rules; and `UTC` or `Etc/UTC`. Which of a zone's names the platform
 * lists as canonical differs between Node.js versions (Node 20 lists `Asia/Calcutta`, later
 * ones `Asia/Kolkata`), so neither is preferred.
 *
 * Refused, with the reason and, where there is one, the name to write: a name in the wrong
 * case, a fixed offset (`+01:00`, `UTC+1`, `Etc/GMT+5`), an abbreviation (`EST`, `CET`,
 * `PST8PDT`), another name of UTC (`GMT`, `Zulu`), a one-word legacy alias (`Japan`, `GB`),
 * and an unknown name (the closest known name, if one is a likely typo).
 */

import { closestName, excerpt } from '#text/message-text.ts';
import { InvalidTimeZoneError, type TimeZoneProblem } from './errors.ts';
import { intlKnowsZone, intlResolvedZone, intlZoneRules } from './intl-zone-rules.ts';

const ALLOWED = '(allowed an IANA zone name such as Europe/Berlin)';

/** The two names of UTC that are accepted. */
const UTC_NAMES: readonly string[] = ['UTC', 'Etc/UTC'];

/** Other names of UTC in the tz database, lowercase: refused, `UTC` suggested. */
const UTC_ALIASES = new Set([
  'gmt',
  'gmt0',
  'gmt+0',
  'gmt-0',
  'greenwich',
  'uct',
  'universal',
  'zulu',
  'etc/gmt',
  'etc/gmt0',
  'etc/gmt+0',
  'etc/gmt-0',
  'etc/greenwich',
  'etc/uct',
  'etc/universal',
  'etc/zulu',
]);

/** `+01:00`, `-0500`, `UTC+1`, `GMT-5`, `Z`. */
const OFFSET_PATTERN = /^[+\-\d]|^(?:utc|gmt|z)\s*[+\-\d]|^z$/i;
/** `Etc/GMT+5`: UTC-05:00, the POSIX sign. */
const ETC_GMT_PATTERN = /^etc\/gmt([+-])(\d{1,2})$/i;
/** What zone names are made of. */
const NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_+\-/]*$/;
const MAX_NAME_LENGTH = 64;

/**
 * Abbreviations and POSIX-style names people write for a zone, and the place to write
 * instead (`undefined` where the abbreviation names several places equally).
 */
const ABBREVIATION_PLACES: Readonly<Record<string, string | undefined>> = {
  EST: 'America/New_York',
  EDT: 'America/New_York',
  EST5EDT: 'America/New_York',
  CST: 'America/Chicago',
  CDT: 'America/Chicago',
  CST6CDT: 'America/Chicago',
  MST: 'America/Denver',
  MDT: 'America/Denver',
  MST7MDT: 'America/Denver',
  PST: 'America/Los_Angeles',
  PDT: 'America/Los_Angeles',
  PST8PDT: 'America/Los_Angeles',
  AKST: 'America/Anchorage',
  AKDT: 'America/Anchorage',
  HST: 'Pacific/Honolulu',
  WET: 'Europe/Lisbon',
  WEST: 'Europe/Lisbon',
  CET: 'Europe/Berlin',
  CEST: 'Europe/Berlin',
  MET: 'Europe/Berlin',
  MEST: 'Europe/Berlin',
  EET: 'Europe/Athens',
  EEST: 'Europe/Athens',
  BST: 'Europe/London',
  MSK: 'Europe/Moscow',
  IST: undefined,
  JST: 'Asia/Tokyo',
  KST: 'Asia/Seoul',
  HKT: 'Asia/Hong_Kong',
  SGT: 'Asia/Singapore',
  AEST: 'Australia/Sydney',
  AEDT: 'Australia/Sydney',
  ACST: 'Australia/Adelaide',
  ACDT: 'Australia/Adelaide',
  AWST: 'Australia/Perth',
  NZST: 'Pacific/Auckland',
  NZDT: 'Pacific/Auckland',
};

/** POSIX-style names: `EST5EDT`, `SystemV/AST4`. */
const POSIX_PATTERN = /^[A-Z]{3,5}\d{1,2}(?:[A-Z]{3,5})?$/i;
/** One-word legacy aliases written in capitals, which are not abbreviations. */
const LEGACY_CODES = new Set(['GB', 'NZ', 'PRC', 'ROC', 'ROK']);

/**
 * IANA's current names of places that the CLDR data, and so `Intl.supportedValuesOf` in
 * Node.js 20, still lists under an older name (`Asia/Calcutta` for `Asia/Kolkata`).
 */
const CURRENT_NAMES_MISSING_FROM_CLDR = [
  'Africa/Asmara',
  'America/Argentina/Buenos_Aires',
  'America/Argentina/Catamarca',
  'America/Argentina/Cordoba',
  'America/Argentina/Jujuy',
  'America/Argentina/Mendoza',
  'America/Atikokan',
  'America/Indiana/Indianapolis',
  'America/Kentucky/Louisville',
  'America/Nuuk',
  'Asia/Ho_Chi_Minh',
  'Asia/Kathmandu',
  'Asia/Kolkata',
  'Asia/Yangon',
  'Atlantic/Faroe',
  'Europe/Kyiv',
  'Pacific/Chuuk',
  'Pacific/Kanton',
  'Pacific/Pohnpei',
];

/** Names already accepted: the checks below build Intl formatters. */
const accepted = new Set<string>();

/**
 * Checks that `zone` is a time zone name zonecron accepts and returns it unchanged.
 *
 * Accepted: the IANA name of a place as the tz database spells it, links included, and
 * `UTC`/`Etc/UTC`. Everything else throws an `InvalidTimeZoneError` whose `problem` says why
 * and whose `suggestion` is the name to write, when there is one (see the module comment).
 *
 * @example
 * validateTimeZone('Europe/Berlin')
 * //=> 'Europe/Berlin'
 * validateTimeZone('+01:00')
 * //=> throws InvalidTimeZoneError: invalid time zone '+01:00': fixed offsets are not allowed
 * //   (allowed an IANA zone name such as Europe/Berlin)
 * validateTimeZone('europe/berlin')
 * //=> throws InvalidTimeZoneError: invalid time zone 'europe/berlin': names are
 * //   case-sensitive; did you mean 'Europe/Berlin'? (allowed …)
 */
export function validateTimeZone(zone: string): string {
  if (accepted.has(zone)) return zone;
  if (typeof zone !== 'string' || zone.trim() === '') {
    throw new InvalidTimeZoneError(
      `invalid time zone ${typeof zone === 'string' ? `'${zone}'` : `of type ${zone === null ? 'null' : typeof zone}`} ${ALLOWED}`,
      String(zone),
      { problem: 'invalid' },
    );
  }
  const refusal = refusalOf(zone);
  if (refusal !== undefined) {
    const { problem, reason, suggestion } = refusal;
    const what = problem === 'unknown' ? 'unknown time zone' : 'invalid time zone';
    const because = reason === undefined ? '' : `: ${reason}`;
    const mean = suggestion === undefined ? '' : `; did you mean '${suggestion}'?`;
    throw new InvalidTimeZoneError(
      `${what} '${excerpt(zone)}'${because}${mean} ${ALLOWED}`,
      zone,
      suggestion === undefined ? { problem } : { problem, suggestion },
    );
  }
  if (accepted.size > 1000) accepted.clear();
  accepted.add(zone);
  return zone;
}

/** Why a non-empty name is refused, or `undefined` when it is accepted. */
interface Refusal {
  readonly problem: TimeZoneProblem;
  readonly reason?: string;
  readonly suggestion?: string;
}

function refusalOf(zone: string): Refusal | undefined {
  const lower = zone.toLowerCase();
  if (UTC_NAMES.includes(zone)) return undefined;
  const utc = UTC_NAMES.find((name) => name.toLowerCase() === lower);
  if (utc !== undefined) return { problem: 'case', reason: 'wrong case', suggestion: utc };
  if (UTC_ALIASES.has(lower)) return utcAlias(lower);
  if (OFFSET_PATTERN.test(zone)) {
    return { problem: 'fixed-offset', reason: 'fixed offsets are not allowed' };
  }
  const etc = ETC_GMT_PATTERN.exec(zone);
  if (etc !== null) return etcOffset(etc[1] === '+' ? -1 : 1, Number(etc[2]));
  if (zone.length > MAX_NAME_LENGTH || !NAME_PATTERN.test(zone)) return unknown(zone);
  if (/^systemv\//i.test(zone)) return abbreviation(zone, zone.slice('SystemV/'.length));
  if (!zone.includes('/')) return oneWord(zone);
  return areaLocation(zone);
}

function utcAlias(lower: string): Refusal {
  const britain = lower.includes('gmt') || lower.includes('greenwich');
  return {
    problem: 'utc-alias',
    reason: britain
      ? 'another name of UTC, which is not the time in the United Kingdom (Europe/London, on BST in summer)'
      : 'another name of UTC',
    suggestion: 'UTC',
  };
}

/** `Etc/GMT+5` is UTC-05:00: `sign` is that of the offset east of UTC. */
function etcOffset(sign: number, hours: number): Refusal {
  return {
    problem: 'fixed-offset',
    reason: `a fixed offset, ${offsetText(sign * hours * 60)} all year (Etc/GMT signs are inverted), and fixed offsets are not allowed`,
  };
}

/** A name without `/`: an abbreviation, a legacy alias such as `Japan`, or unknown. */
function oneWord(zone: string): Refusal {
  const isAbbreviation =
    Object.hasOwn(ABBREVIATION_PLACES, zone.toUpperCase()) ||
    POSIX_PATTERN.test(zone) ||
    (/^[A-Z]{2,5}$/.test(zone) && !LEGACY_CODES.has(zone));
  if (isAbbreviation) return abbreviation(zone, zone);
  const resolved = intlResolvedZone(zone);
  if (resolved === undefined) return unknown(zone);
  return {
    problem: 'legacy-alias',
    reason: 'an old name the tz database keeps for compatibility',
    suggestion: resolved,
  };
}

/** `EST`, `CET`, `PST8PDT`, `SystemV/EST5`: the platform's reading of it, and a place. */
function abbreviation(zone: string, name: string): Refusal {
  const upper = name.toUpperCase();
  const place = ABBREVIATION_PLACES[upper] ?? ABBREVIATION_PLACES[/^[A-Z]+/.exec(upper)?.[0] ?? ''];
  const resolved = intlResolvedZone(zone);
  const reading =
    resolved === undefined || resolved === place ? undefined : readingOf(resolved, zone);
  return {
    problem: 'abbreviation',
    reason: `an abbreviation, not a place${reading === undefined ? '' : `; the platform reads it as ${reading}`}`,
    ...(place === undefined ? {} : { suggestion: place }),
  };
}

/**
 * What the platform makes of an abbreviation it resolved to `resolved`: `Europe/Brussels`,
 * `America/Panama, UTC-05:00 all year`, `a fixed UTC-05:00 all year`, or nothing worth
 * saying (it kept the abbreviation, which has daylight saving time).
 */
function readingOf(resolved: string, zone: string): string | undefined {
  const fixed = fixedOffsetOf(resolved);
  const place = resolved.includes('/') && !/^(?:etc|systemv)\//i.test(resolved);
  if (fixed === undefined)
    return resolved.toLowerCase() === zone.toLowerCase() ? undefined : resolved;
  return place
    ? `${resolved}, ${offsetText(fixed)} all year`
    : `a fixed ${offsetText(fixed)} all year`;
}

/** An `Area/Location` name: accepted when the platform knows it, spelled as the database does. */
function areaLocation(zone: string): Refusal | undefined {
  const names = knownNames();
  if (names.exact.has(zone)) return undefined;
  const cased = names.byLowerCase.get(zone.toLowerCase());
  if (cased !== undefined) return { problem: 'case', reason: 'wrong case', suggestion: cased };
  const resolved = intlResolvedZone(zone);
  if (resolved === undefined) return unknown(zone);
  // A link (`US/Eastern`): the platform knows it in any case, so its spelling is checked by
  // the database's conventions: every part starts with a capital and none is shouted.
  const conventional = zone
    .split('/')
    .every((part) => /^[A-Z]/.test(part) && !/[A-Z]{5,}/.test(part.replace(/[_-]/g, ' ')));
  return conventional ? undefined : { problem: 'case', reason: 'wrong case', suggestion: resolved };
}

function unknown(zone: string): Refusal {
  const typed = zone.trim().replace(/ /g, '_');
  const suggestion =
    typed.length > MAX_NAME_LENGTH + 8
      ? undefined
      : closestName(typed, knownNames().exact, {
          maxDistance: Math.max(2, Math.floor(typed.length / 5)),
          // "Berlin" or "New York" alone finds Europe/Berlin and America/New_York.
          formsOf: typed.includes('/')
            ? (name) => [name]
            : (name) => [name, name.slice(name.lastIndexOf('/') + 1)],
        });
  return suggestion === undefined ? { problem: 'unknown' } : { problem: 'unknown', suggestion };
}

/** The names of places and of UTC that the platform knows, built once. */
let known: { exact: Set<string>; byLowerCase: Map<string, string> } | undefined;

function knownNames(): NonNullable<typeof known> {
  if (known === undefined) {
    const names = [
      ...Intl.supportedValuesOf('timeZone'),
      ...CURRENT_NAMES_MISSING_FROM_CLDR.filter(intlKnowsZone),
    ].filter((name) => name.includes('/') && !/^etc\//i.test(name));
    const exact = new Set([...names, 'UTC']);
    known = { exact, byLowerCase: new Map(names.map((name) => [name.toLowerCase(), name])) };
  }
  return known;
}

/** Instants a fixed offset is recognised by: January and July of two years. */
const PROBE_MINUTES = ['2024-01-15', '2024-07-15', '2025-01-15', '2025-07-15'].map(
  (day) => Date.parse(`${day}T12:00:00Z`) / 60_000,
);

/** The offset of a zone that has no daylight saving time, in minutes east of UTC. */
function fixedOffsetOf(zone: string): number | undefined {
  const offsets = new Set(PROBE_MINUTES.map((m) => intlZoneRules.offsetMinutesAt(zone, m)));
  return offsets.size === 1 ? [...offsets][0] : undefined;
}

/** `UTC-05:00`. */
function offsetText(minutesEast: number): string {
  const sign = minutesEast < 0 ? '-' : '+';
  const hours = String(Math.floor(Math.abs(minutesEast) / 60)).padStart(2, '0');
  const minutes = String(Math.abs(minutesEast) % 60).padStart(2, '0');
  return `UTC${sign}${hours}:${minutes}`;
}
