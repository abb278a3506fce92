import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SkipReason } from '#ledger/index.ts';
import { reasonInRange } from '#ledger/skip-range.ts';
import {
  inPause,
  MAX_SKIPS_RECORDED,
  pauseSpans,
  policyPicks,
  scanGap,
} from '../../../functions/dispatcher/gap.ts';
import { occurrencesBetween } from '../../../functions/schedule/index.ts';
import { makeJob } from '../../support/jobs.ts';

const HOUR = 3_600_000;
const S = Date.parse('2023-06-04T00:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

describe('policyPicks', () => {
  const runs = [1, 2, 3, 4, 5];
  it.each([
    ['all', 2, [4, 5]],
    ['all', 10, [1, 2, 3, 4, 5]],
    ['latest', 2, [5]],
    ['none', 2, []],
  ] as const)('under %s with maxRuns %i delivers %j', (policy, maxRuns, expected) => {
    expect(policyPicks({ catchup: { policy, maxRuns, windowSeconds: 86_400 } }, runs)).toEqual(
      expected,
    );
  });
});

describe('pauseSpans', () => {
  it('gives the current pause an open end and the last one its resume', () => {
    const state = {
      jobId: 'j',
      pausedAt: iso(S),
      lastPauseFrom: iso(S - 5 * HOUR),
      lastPauseTo: iso(S - 4 * HOUR),
    };
    expect(pauseSpans(state)).toEqual([
      { fromMs: S - 5 * HOUR, toMs: S - 4 * HOUR },
      { fromMs: S, toMs: Number.POSITIVE_INFINITY },
    ]);
  });
});

describe('scanGap', () => {
  const hourly = makeJob({ id: 'h', schedule: '0 * * * *', timezone: 'UTC' });

  it('keeps the newest runs inside the window as candidates and skips the rest of the gap', () => {
    const scan = scanGap(hourly, {
      afterMs: S - 5 * HOUR,
      upToMs: S,
      countFromMs: S - 35 * 24 * HOUR,
      ownMs: S,
      pauses: [],
      keep: 2,
    });
    expect(scan.candidates.map((o) => iso(o.at.getTime()))).toEqual([
      iso(S - 2 * HOUR),
      iso(S - HOUR),
    ]);
    expect(scan.skips.map((s) => [iso(s.occurrence.at.getTime()), s.reason])).toEqual([
      [iso(S - 4 * HOUR), 'max-runs'],
      [iso(S - 3 * HOUR), 'max-runs'],
    ]);
    expect(scan.needsRange).toBe(false);
    expect(scan.runs).toBe(4);
  });

  it('decides a ten-year gap of a minutely job with a bounded number of runs held', () => {
    const minutely = makeJob({ id: 'm', schedule: '* * * * *', timezone: 'UTC' });
    const scan = scanGap(minutely, {
      afterMs: S - 10 * 365 * 24 * HOUR,
      upToMs: S,
      countFromMs: S - 35 * 24 * HOUR,
      pauses: [],
      keep: 100,
    });
    expect(scan.candidates).toHaveLength(100);
    expect(scan.skips).toHaveLength(MAX_SKIPS_RECORDED);
    expect(scan.needsRange).toBe(true);
    // Counted back to the retention only: the minutes of [S - 35 days, S], less the 200 held.
    expect(scan.rangeRuns).toBe(35 * 24 * 60 + 1 - 200);
  });

  it('gives every run of a gap exactly one decision, and the range the reason its runs were skipped for', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('*/5 * * * *', '0 * * * *', '30 2 * * *', '*/15 9-17 * * 1-5'),
        fc.constantFrom('all' as const, 'latest' as const, 'none' as const),
        fc.integer({ min: 0, max: 150 }),
        fc.integer({ min: 1, max: 72 }),
        fc.integer({ min: 1, max: 48 }),
        fc.option(fc.tuple(fc.integer({ min: 0, max: 72 }), fc.integer({ min: 1, max: 24 }))),
        (cron, policy, keep, gapHours, windowHours, pause) => {
          const job = makeJob({
            id: 'p',
            schedule: cron,
            timezone: 'Europe/Berlin',
            catchup: { policy, windowSeconds: windowHours * 3600 },
          });
          const afterMs = S - gapHours * HOUR;
          const pauses = pause
            ? [{ fromMs: S - pause[0] * HOUR, toMs: S - pause[0] * HOUR + pause[1] * HOUR }]
            : [];
          const scan = scanGap(job, { afterMs, upToMs: S, countFromMs: afterMs, pauses, keep });
          const runs = occurrencesBetween(
            { cron, timezone: 'Europe/Berlin' },
            new Date(afterMs),
            new Date(S),
          );
          const windowStartMs = S - windowHours * HOUR;
          const eligible = runs.filter(
            (o) => o.at.getTime() >= windowStartMs && !inPause(pauses, o.at.getTime()),
          );
          expect(scan.candidates).toEqual(eligible.slice(Math.max(0, eligible.length - keep)));
          const held = new Set(
            [...scan.candidates, ...scan.skips.map((s) => s.occurrence)].map((o) => o.at.getTime()),
          );
          const range = {
            jobId: 'p',
            afterMs,
            beforeMs: scan.rangeBeforeMs,
            windowStartMs,
            policyReason: (policy === 'all' ? 'max-runs' : `catch-up-${policy}`) as SkipReason,
            pauses,
            runs: scan.rangeRuns,
            pausedRuns: scan.rangePaused,
            countedFromMs: afterMs,
            decidedAt: '',
          } as const;
          let inRange = 0;
          let pausedInRange = 0;
          for (const o of runs) {
            const ms = o.at.getTime();
            if (held.has(ms)) continue;
            inRange++;
            if (inPause(pauses, ms)) pausedInRange++;
            const expected = inPause(pauses, ms)
              ? 'paused'
              : ms < windowStartMs
                ? 'outside-window'
                : range.policyReason;
            expect(reasonInRange(range, o.at)).toBe(expected);
          }
          expect(scan.rangeRuns).toBe(inRange);
          expect(scan.rangePaused).toBe(pausedInRange);
          expect(scan.skips.length).toBeLessThanOrEqual(MAX_SKIPS_RECORDED);
          expect(scan.runs).toBe(runs.length);
        },
      ),
      { numRuns: 150 },
    );
  });
});
