import { describe, expect, it } from 'vitest';
import { scheduleSpecOf } from '#jobs/job.ts';
import {
  noRunsReason,
  renderSimulation,
  type SimulationReportInput,
} from '../../../../cli/format/simulation-report.ts';
import { checkSimulation } from '../../../../cli/simulation/check.ts';
import { faultCounts } from '../../../../cli/simulation/faulty-parts.ts';
import type { SimulationResult } from '../../../../cli/simulation/run-simulation.ts';
import type { SimulationWindow } from '../../../../cli/simulation/windows.ts';
import { occurrencesBetween } from '../../../../functions/schedule/index.ts';
import { parseJobsConfig } from '../../../../infra/config/load-jobs.ts';

const { jobs } = parseJobsConfig(
  `jobs:
  - id: ny-billing-sync
    description: weekdays at 09:00 in New York
    schedule: "0 9 * * MON-FRI"
    timezone: America/New_York
    target: { type: sqs, arn: "arn:aws:sqs:eu-west-1:123456789012:billing" }
  - id: berlin-nightly
    description: 02:30 in Berlin
    schedule: "30 2 * * *"
    timezone: Europe/Berlin
    target: { type: lambda, arn: "arn:aws:lambda:eu-west-1:123456789012:function:nightly" }
`,
  'jobs.yaml',
);
const [ny, berlin] = jobs as [(typeof jobs)[number], (typeof jobs)[number]];

/** New York springs forward on Sunday 2027-03-14: ±1 day is Saturday to Monday morning. */
const NY_SPRING_WEEKEND: SimulationWindow = {
  from: new Date('2027-03-13T07:00:00Z'),
  to: new Date('2027-03-15T07:00:00Z'),
  reasons: ['America/New_York springs forward at 2027-03-14T07:00:00.000Z'],
};
/** Berlin springs forward on Sunday 2027-03-28; New York's clocks do not change then. */
const BERLIN_SPRING_WEEKEND: SimulationWindow = {
  from: new Date('2027-03-27T01:00:00Z'),
  to: new Date('2027-03-29T01:00:00Z'),
  reasons: ['Europe/Berlin springs forward at 2027-03-28T01:00:00.000Z'],
};
/** Tuesday to Thursday morning in New York, no DST change: the engine has two runs. */
const NY_MIDWEEK: SimulationWindow = {
  from: new Date('2027-11-02T12:00:00Z'),
  to: new Date('2027-11-04T12:00:00Z'),
  reasons: [],
};

/**
 * What a simulation of `windows` that delivered nothing would return; `expected` as the
 * engine has it, so the report's check sees the runs it missed.
 */
function undelivered(windows: SimulationWindow[], simulated = [ny]): SimulationResult {
  const expected = new Map(
    simulated.map((job) => [
      job.id,
      windows.flatMap((w) => occurrencesBetween(scheduleSpecOf(job), w.from, w.to)),
    ]),
  );
  return {
    windows,
    runs: [],
    duplicatesSuppressed: 0,
    duplicatesByJob: new Map(),
    duplicatesByKey: new Map(),
    expected,
    deadLettered: [],
    counts: { ticks: 0, sweeps: 2880 * windows.length, events: 2880 * windows.length },
    coverings: new Map([
      [ny.id, 'cron(0 13,14 ? * MON-FRI *)'],
      [berlin.id, 'cron(30 0,1 * * ? *)'],
    ]),
    faulted: false,
    faults: faultCounts(),
    outcomes: [],
    invariants: [],
    signals: { missed: 0, late: 0, stuck: 0, deadLettered: 0, deadlineMissed: 0, redelivered: 0 },
    coldStarts: 1,
    notifications: [],
    operator: [],
    hostile: [],
  };
}

function report(windows: SimulationWindow[], options: Partial<SimulationReportInput> = {}): string {
  const result = undelivered(windows);
  const text = renderSimulation({
    file: 'jobs.yaml',
    jobs: [ny],
    result,
    check: checkSimulation(result),
    windowsChosen: 'the window given by --from/--to',
    duplicateTicks: 2,
    elapsedMs: 1000,
    all: false,
    legend: true,
    faults: undefined,
    ...options,
  });
  return text;
}

/** The text with every run of spaces and line breaks as one space: wrapped lines joined. */
const words = (text: string) => text.replace(/\s+/g, ' ');

const LEGEND_TERMS = ['UTC covering', 'local, UTC', 'key', 'dup', 'sweeps', 'covering ticks'];

describe('renderSimulation: the legend', () => {
  it('explains each column and term once, after the windows and before the first job', () => {
    const text = renderSimulation({
      file: 'jobs.yaml',
      jobs: [ny, berlin],
      result: undelivered([NY_SPRING_WEEKEND], [ny, berlin]),
      check: checkSimulation(undelivered([NY_SPRING_WEEKEND], [ny, berlin])),
      windowsChosen: 'the window given by --from/--to',
      duplicateTicks: 3,
      elapsedMs: 1000,
      all: false,
      legend: true,
      faults: undefined,
    });
    expect(text.match(/^How to read it$/gm)).toEqual(['How to read it']);
    const legend = text.slice(text.indexOf('How to read it'), text.indexOf('\nny-billing-sync'));
    expect(text.indexOf('How to read it')).toBeGreaterThan(text.indexOf('  1. 2027-03-13T07:00Z'));
    for (const term of LEGEND_TERMS)
      expect(legend).toMatch(new RegExp(`^ {2}${term} {2,}\\S`, 'm'));
    expect(words(legend)).toContain('each delivered 3× (--duplicate-ticks)');
    expect(legend).toContain('(--no-legend leaves this out)');
    expect(legend).not.toContain('signals');
  });

  it('is left out when legend is false (--no-legend)', () => {
    expect(report([NY_SPRING_WEEKEND], { legend: false })).not.toContain('How to read it');
  });

  it('explains the signals too when faults were injected', () => {
    const text = report([NY_SPRING_WEEKEND], { faults: { file: 'faults.yaml', seed: 7 } });
    expect(text).toMatch(/^ {2}signals {2,}notifications to the on-call topic/m);
  });

  it('counts deadline-missed notifications among the signals only when there are some', () => {
    const faults = { file: 'faults.yaml', seed: 7 };
    const none = words(report([NY_SPRING_WEEKEND], { faults }));
    expect(none).toContain('0 dead-lettered · 0 possible redeliveries');
    const result = undelivered([NY_SPRING_WEEKEND]);
    const some = renderSimulation({
      file: 'jobs.yaml',
      jobs: [ny],
      result: { ...result, signals: { ...result.signals, deadlineMissed: 2 } },
      check: checkSimulation(result),
      windowsChosen: 'the window given by --from/--to',
      duplicateTicks: 2,
      elapsedMs: 1000,
      all: false,
      legend: true,
      faults,
    });
    expect(words(some)).toContain('0 dead-lettered · 2 deadline-missed · 0 possible redeliveries');
    expect(words(some)).toContain('stuck, dead-lettered, deadline-missed');
  });

  it('fits every line of the report in 80 columns', () => {
    const lines = renderSimulation({
      file: 'jobs.yaml',
      jobs: [ny, berlin],
      result: undelivered([NY_SPRING_WEEKEND, BERLIN_SPRING_WEEKEND], [ny, berlin]),
      check: checkSimulation(undelivered([NY_SPRING_WEEKEND, BERLIN_SPRING_WEEKEND], [ny, berlin])),
      windowsChosen: 'the window given by --from/--to',
      duplicateTicks: 2,
      elapsedMs: 1000,
      all: false,
      legend: true,
      faults: { file: 'faults.yaml', seed: 7 },
    }).split('\n');
    expect(lines.filter((line) => [...line].length > 80)).toEqual([]);
  });
});

describe('renderSimulation: a job with 0 runs', () => {
  it('says the weekday schedule has none between the weekend window’s local bounds', () => {
    const text = report([NY_SPRING_WEEKEND]);
    expect(text).toContain('\n  window: 0 runs — the schedule has none between Sat 2027-03-13');
    expect(words(text)).toContain(
      ' window: 0 runs — the schedule has none between Sat 2027-03-13 02:00 and Mon' +
        ' 2027-03-15 03:00 local (at 09:00 on Monday through Friday) ',
    );
  });

  it('says why for windows without a DST change in the zone, summed on one line', () => {
    const text = report([NY_SPRING_WEEKEND, BERLIN_SPRING_WEEKEND]);
    expect(text).toContain('\n  window 2: 0 runs, no DST change in America/New_York');
    expect(words(text)).toContain(
      ' window 2: 0 runs, no DST change in America/New_York — the schedule has none in it' +
        ' (at 09:00 on Monday through Friday) ',
    );
  });

  it('gives no reason when the engine has runs in the window that were not delivered', () => {
    const text = report([NY_MIDWEEK]);
    expect(text).toContain('\n  the window: 0 runs, no DST change in America/New_York\n');
    expect(text).not.toContain('the schedule has none');
    expect(words(text)).toContain('✗ 0 runs delivered, 2 expected: 2 missing');
  });
});

describe('noRunsReason', () => {
  it('words the window in the job’s local time and the schedule as explainCron does', () => {
    expect(noRunsReason(ny, NY_SPRING_WEEKEND)).toBe(
      'the schedule has none between Sat 2027-03-13 02:00 and Mon 2027-03-15 03:00 local' +
        ' (at 09:00 on Monday through Friday)',
    );
  });
});
