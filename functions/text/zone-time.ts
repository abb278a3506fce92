import { DateTime } from 'luxon';

/**
 * Locales tried, in order, for a zone's letter abbreviation.
 *
 * ICU only knows an abbreviation in the locales where it is common: `en-US` says `GMT+2` for
 * Berlin, `en-GB` says `CEST`; Sydney's `AEDT` needs `en-AU`, Kolkata's `IST` needs `en-IN`.
 */
const ABBREVIATION_LOCALES = ['en-US', 'en-GB', 'en-AU', 'en-IN'];

/**
 * The zone's abbreviation at an instant (`CEST`, `EDT`, `AEDT`), or undefined when no locale
 * has a letter one (then callers show the numeric offset).
 */
export function zoneAbbreviation(at: Date, zone: string): string | undefined {
  const dt = DateTime.fromJSDate(at, { zone });
  for (const locale of ABBREVIATION_LOCALES) {
    const name = dt.setLocale(locale).toFormat('ZZZZ');
    if (/^[A-Z]{2,6}$/.test(name)) return name;
  }
  return undefined;
}

/** The offset at an instant as `+02:00`. */
export function offsetText(at: Date, zone: string): string {
  return DateTime.fromJSDate(at, { zone }).toFormat('ZZ');
}

/** `CEST`, or `+11:00` when the zone has no abbreviation. */
export function zoneLabel(at: Date, zone: string): string {
  return zoneAbbreviation(at, zone) ?? offsetText(at, zone);
}

/** Local wall-clock time with weekday, offset and abbreviation: `Sun 2023-03-26 03:30 +02:00 CEST`. */
export function formatLocal(at: Date, zone: string): string {
  const dt = DateTime.fromJSDate(at, { zone }).setLocale('en-US');
  const abbreviation = zoneAbbreviation(at, zone);
  const text = dt.toFormat('ccc yyyy-LL-dd HH:mm ZZ');
  return abbreviation ? `${text} ${abbreviation}` : text;
}

/** Local clock time and zone label, for sentences: `03:30 CEST`. */
export function formatLocalClock(at: Date, zone: string): string {
  return `${DateTime.fromJSDate(at, { zone }).toFormat('HH:mm')} ${zoneLabel(at, zone)}`;
}

/** A UTC instant to the minute's second: `2023-03-26T01:30:00Z`. */
export function formatUtc(at: Date): string {
  return `${at.toISOString().slice(0, 19)}Z`;
}
