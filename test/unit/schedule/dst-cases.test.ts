// The DST case table (test/fixtures/dst-cases.ts) against the engine: every case's runs,
// instants, nominal slots and dst tags, through nextOccurrences, occurrencesBetween and the lazy
// iterator. Expected values are hand-written from tz facts, never computed by the engine.
import { describe, expect, it } from 'vitest';
import {
  iterateOccurrences,
  nextOccurrences,
  type Occurrence,
  occurrencesBetween,
  resolvePolicies,
  type ScheduleSpec,
  scheduleKind,
} from '../../../functions/schedule/index.ts';
import { type DstCase, dstCases, type ExpectedRun, windowCases } from '../../fixtures/dst-cases.ts';

const specOf = (c: DstCase): ScheduleSpec => ({
  cron: c.cron,
  timezone: c.zone,
  ...(c.dst ? { dst: c.dst } : {}),
});

/** The observable part of a run, shaped like the expectation. */
function shapeLike(run: Occurrence, expected: ExpectedRun) {
  const at = run.at.toISOString();
  if (expected.nominalOneOf) {
    return {
      at,
      nominalOneOf: expected.nominalOneOf.includes(run.nominal)
        ? expected.nominalOneOf
        : [`unexpected nominal ${run.nominal}`],
    };
  }
  return { at, nominal: run.nominal, dst: run.dst };
}

function take<T>(it: Iterator<T>, n: number): T[] {
  const out: T[] = [];
  for (let i = 0; i < n; i++) {
    const r = it.next();
    if (r.done) break;
    out.push(r.value);
  }
  return out;
}

describe('DST cases', () => {
  it.each(dstCases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const runs = nextOccurrences(specOf(c), new Date(c.after), c.expected.length);
    expect(runs.map((r, i) => shapeLike(r, c.expected[i] ?? { at: '' }))).toEqual(c.expected);
  });
});

describe('DST cases through occurrencesBetween (from < at <= to)', () => {
  it.each(dstCases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const last = c.expected[c.expected.length - 1]?.at ?? c.after;
    const runs = occurrencesBetween(specOf(c), new Date(c.after), new Date(last));
    expect(runs.map((r) => r.at.toISOString())).toEqual(c.expected.map((e) => e.at));
  });
});

describe('windows whose edges touch a gap or an overlap (from < at <= to)', () => {
  it.each(windowCases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const spec: ScheduleSpec = { cron: c.cron, timezone: c.zone, ...(c.dst ? { dst: c.dst } : {}) };
    const runs = occurrencesBetween(spec, new Date(c.from), new Date(c.to));
    expect(runs.map((r) => r.at.toISOString())).toEqual(c.expected);
  });
});

describe('DST cases through the lazy iterator', () => {
  it.each(dstCases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const runs = take(iterateOccurrences(specOf(c), new Date(c.after)), c.expected.length);
    expect(runs.map((r) => r.at.toISOString())).toEqual(c.expected.map((e) => e.at));
  });
});

describe('kinds and default policies', () => {
  it.each([
    ['*/15 * * * *', 'cadence'],
    ['0 * * * *', 'cadence'],
    ['@hourly', 'cadence'],
    ['* * * * *', 'cadence'],
    ['0 0-23 * * *', 'cadence'],
    ['0 */1 * * *', 'cadence'],
    ['5 0-11,12-23 * * 1-5', 'cadence'],
    ['30 2 * * *', 'wall-clock'],
    ['0 9 * * 1-5', 'wall-clock'],
    ['0 */2 * * *', 'wall-clock'],
    ['0 0-22 * * *', 'wall-clock'],
    ['@daily', 'wall-clock'],
  ] as const)('classifies %s as %s', (cron, kind) => {
    expect(scheduleKind({ cron, timezone: 'Europe/Berlin' })).toBe(kind);
  });

  it.each([
    ['*/15 * * * *', undefined, { gap: 'skip', overlap: 'both' }],
    ['30 2 * * *', undefined, { gap: 'shift', overlap: 'first' }],
    ['30 2 * * *', { gap: 'skip' }, { gap: 'skip', overlap: 'first' }],
    ['30 2 * * *', { overlap: 'both' }, { gap: 'shift', overlap: 'both' }],
    ['*/15 * * * *', { gap: 'transition' }, { gap: 'transition', overlap: 'both' }],
    ['*/15 * * * *', { overlap: 'last' }, { gap: 'skip', overlap: 'last' }],
  ] as const)('resolves %s with overrides %j to %j', (cron, dst, expected) => {
    const spec: ScheduleSpec = { cron, timezone: 'Europe/Berlin', ...(dst ? { dst } : {}) };
    expect(resolvePolicies(spec)).toEqual(expected);
  });
});

describe('zones without DST', () => {
  it('runs a UTC job at the same wall time all year', () => {
    const runs = occurrencesBetween(
      { cron: '30 2 * * *', timezone: 'UTC' },
      new Date('2023-03-25T00:00:00Z'),
      new Date('2023-03-28T00:00:00Z'),
    );
    expect(runs.map((r) => [r.at.toISOString(), r.nominal, r.dst])).toEqual([
      ['2023-03-25T02:30:00.000Z', '2023-03-25T02:30', 'none'],
      ['2023-03-26T02:30:00.000Z', '2023-03-26T02:30', 'none'],
      ['2023-03-27T02:30:00.000Z', '2023-03-27T02:30', 'none'],
    ]);
  });
});
