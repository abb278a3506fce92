// The product never reads the process's time zone: every instant is read and printed in UTC or
// in a zone named explicitly. That is why `npm test` (scripts/test.mjs) runs the CLI's
// end-to-end tests under TZ=UTC only, and the engine and formatting units under a zone with
// DST as well. This test keeps it true: no local-time getter of Date, no Date string in the
// process's zone, no Intl date formatter without a timeZone, in cli/ or functions/.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const LOCAL_TIME =
  /\.(getHours|getMinutes|getSeconds|getDate|getDay|getMonth|getFullYear|getTimezoneOffset|setHours|setDate|setMonth|setFullYear|toDateString|toTimeString|toLocaleDateString|toLocaleTimeString)\(|new Date\(\s*\d+\s*,/;

/** The lines of `text` that read or print the process's time zone. */
function localTimeUses(text: string): string[] {
  const lines = text.split('\n');
  // A formatter's options run from `DateTimeFormat(` to the first `)` after it.
  const formatter = (i: number) => {
    const at = text.indexOf('DateTimeFormat(', offsets[i]);
    if (at < 0 || at >= (offsets[i + 1] ?? text.length)) return false;
    return !/timeZone\b/.test(text.slice(at, text.indexOf(')', at)));
  };
  const offsets: number[] = [];
  lines.reduce((at, line) => offsets.push(at) && at + line.length + 1, 0);
  return lines.filter((line, i) => LOCAL_TIME.test(line) || formatter(i));
}

function sources(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(folder, f));
}

describe('the process time zone', () => {
  it('is read nowhere in cli/ or functions/', () => {
    const uses = [...sources('cli'), ...sources('functions')].flatMap((file) =>
      localTimeUses(readFileSync(file, 'utf8')).map((line) => `${file}: ${line.trim()}`),
    );
    expect(uses).toEqual([]);
  });

  it('is seen in a local getter, a local Date constructor and a formatter without a zone', () => {
    const text = [
      'const h = now.getHours();',
      'const d = new Date(2027, 2, 28);',
      "const f = new Intl.DateTimeFormat('en-US', { hour: 'numeric' });",
      "const g = new Intl.DateTimeFormat('en-US', { timeZone: zone, hour: 'numeric' });",
      'const u = now.getUTCHours();',
    ].join('\n');
    expect(localTimeUses(text)).toHaveLength(3);
  });
});
