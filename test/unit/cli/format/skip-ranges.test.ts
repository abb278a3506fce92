import pc from 'picocolors';
import { describe, expect, it } from 'vitest';
import type { SkipRange } from '#ledger/index.ts';
import { rangeReasons, skipRangeLines } from '../../../../cli/format/skip-ranges.ts';

const ms = (iso: string) => Date.parse(iso);
const plain = pc.createColors(false);

/** A range of an hourly job's gap after 2027-03-20 10:00, its last run 2027-03-28 09:00. */
function range(overrides: Partial<SkipRange> = {}): SkipRange {
  return {
    jobId: 'hourly',
    afterMs: ms('2027-03-20T10:00:00Z'),
    beforeMs: ms('2027-03-28T09:00:00.001Z'),
    windowStartMs: ms('2027-03-27T10:00:00Z'),
    policyReason: 'max-runs',
    pauses: [],
    runs: 11_423,
    pausedRuns: 0,
    countedFromMs: ms('2027-03-20T10:00:00Z'),
    decidedAt: '2027-03-28T10:00:02.000Z',
    ...overrides,
  };
}

const stretches = (r: SkipRange) =>
  rangeReasons(r).map((s) => [new Date(s.fromMs).toISOString().slice(5, 16), s.reason]);

describe('rangeReasons', () => {
  it('splits the range at the window: outside-window before it, the policy reason from it', () => {
    expect(stretches(range())).toEqual([
      ['03-20T10:00', 'outside-window'],
      ['03-27T10:00', 'max-runs'],
    ]);
  });

  it('gives a pause that began before the range and one that outlasts it as paused, clipped to the range', () => {
    const r = range({
      pauses: [
        { fromMs: ms('2027-03-19T00:00Z'), toMs: ms('2027-03-21T00:00Z') },
        { fromMs: ms('2027-03-28T00:00Z'), toMs: ms('2027-03-29T00:00Z') },
      ],
    });
    expect(stretches(r)).toEqual([
      ['03-20T10:00', 'paused'],
      ['03-21T00:00', 'outside-window'],
      ['03-27T10:00', 'max-runs'],
      ['03-28T00:00', 'paused'],
    ]);
    expect(rangeReasons(r).at(-1)?.toMs).toBe(r.beforeMs);
  });

  it('gives one stretch when the window starts after the range ends', () => {
    expect(stretches(range({ windowStartMs: ms('2027-03-28T09:30Z') }))).toEqual([
      ['03-20T10:00', 'outside-window'],
    ]);
  });
});

describe('skipRangeLines', () => {
  it('writes the run count with separators, the reasons with their bounds and the decision, within 80 columns', () => {
    const lines = skipRangeLines(range(), plain);
    expect(lines.join('\n')).toBe(
      'after 2027-03-20 10:00 through 03-28 09:00: skipped ×11,423 (outside-window\n' +
        '  before 03-27 10:00, max-runs from 03-27 10:00; paused ×0), decided 2027-03-28\n' +
        '  10:00',
    );
    expect(lines.every((l) => [...l].length <= 80)).toBe(true);
  });

  it('says from when it counted when the range is older than the retention', () => {
    const lines = skipRangeLines(range({ countedFromMs: ms('2027-03-22T00:00Z') }), plain);
    expect(lines.join(' ').replace(/\s+/g, ' ')).toContain(
      'paused ×0; counted from 03-22 00:00, the retention), decided',
    );
  });
});
