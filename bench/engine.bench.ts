/**
 * Benchmark: zonecron's engine against croner and cron-parser on the same workload.
 *
 * Workload: the next 1,000 occurrences of eight expressions in Europe/Berlin from
 * 2026-01-01T00:00 Berlin time (2025-12-31T23:00:00Z). Each library builds its schedule
 * object inside the timed call, as a caller would per tick. After a warm-up, every library
 * runs several rounds; the figure is total occurrences / total time. It prints figures, it
 * asserts nothing: it is not a test. Run with `npm run bench`. It ends with the cost of the
 * zone tables (one fresh engine per zone, 1990 through 2029, every fourth zone of the platform),
 * then the time `nextRun` takes to answer "never" and to find a run decades away, and last what
 * a business calendar costs: the same schedules with and without one. `npm run bench -- --calendar`
 * runs only that last section.
 */

import { CronExpressionParser } from 'cron-parser';
import { Cron } from 'croner';
import Holidays from 'date-holidays';
import {
  type BusinessCalendar,
  type CalendarRule,
  createEngine,
  nextOccurrences,
  occurrencesBetween,
  type ScheduleSpec,
} from '../functions/schedule/index.ts';

const ZONE = 'Europe/Berlin';
const START = new Date('2025-12-31T23:00:00Z');
const COUNT = 1000;
const EXPRESSIONS = [
  '30 2 * * *',
  '*/15 * * * *',
  '0 9 * * 1-5',
  '0 0 1 * *',
  '5 4 * * SUN',
  '0 22 * * 1-5',
  '15 10 L * *',
  '0 */2 * * *',
];

type Runner = (expression: string) => number[];

const libraries: Record<string, Runner> = {
  zonecron: (expression) =>
    nextOccurrences({ cron: expression, timezone: ZONE }, START, COUNT).map((o) => o.at.getTime()),
  croner: (expression) =>
    new Cron(expression, { timezone: ZONE }).nextRuns(COUNT, START).map((d) => d.getTime()),
  'cron-parser': (expression) => {
    const parsed = CronExpressionParser.parse(expression, { currentDate: START, tz: ZONE });
    const result: number[] = [];
    for (let i = 0; i < COUNT; i++) result.push(parsed.next().getTime());
    return result;
  },
};

/**
 * Timed batches: a batch is `calls` runs of one expression by one library, sized so that every
 * library's batch takes a few tenths of a second. For each expression the libraries take turns
 * batch by batch, so a load spike on a shared machine hits them alike; the figure is the
 * median batch rate.
 */
const PLAN: Record<string, { calls: number; warmups: number }> = {
  zonecron: { calls: 300, warmups: 30 },
  croner: { calls: 1, warmups: 1 },
  'cron-parser': { calls: 1, warmups: 1 },
};
const BATCHES = 3;

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

function measureAll(): Map<string, Map<string, number>> {
  const results = new Map<string, Map<string, number>>();
  for (const [name, run] of Object.entries(libraries)) {
    results.set(name, new Map());
    const warmups = PLAN[name]?.warmups ?? 1;
    for (let i = 0; i < warmups; i++) for (const expression of EXPRESSIONS) run(expression);
  }
  for (const expression of EXPRESSIONS) {
    const batchRates = new Map<string, number[]>();
    for (let batch = 0; batch < BATCHES; batch++) {
      for (const [name, run] of Object.entries(libraries)) {
        const calls = PLAN[name]?.calls ?? 1;
        let occurrences = 0;
        const startMs = performance.now();
        for (let call = 0; call < calls; call++) occurrences += run(expression).length;
        const rate = occurrences / ((performance.now() - startMs) / 1000);
        batchRates.set(name, [...(batchRates.get(name) ?? []), rate]);
      }
    }
    for (const [name, rates] of batchRates) results.get(name)?.set(expression, median(rates));
  }
  return results;
}

function format(rate: number): string {
  return Math.round(rate).toLocaleString('en-US').padStart(12);
}

/** Overall rate: the whole workload (every expression once) divided by its total time. */
function overall(rates: Map<string, number>): number {
  let seconds = 0;
  for (const rate of rates.values()) seconds += COUNT / rate;
  return (COUNT * rates.size) / seconds;
}

/** `--calendar`: only the last section, the cost of a business calendar (about 10 s, not 60). */
const calendarOnly = process.argv.slice(2).includes('--calendar');

if (!calendarOnly) {
  const coldStartMs = performance.now();
  nextOccurrences({ cron: '7 7 7 7 *', timezone: 'Europe/Berlin' }, START, 1);
  const coldMs = performance.now() - coldStartMs;

  const results = measureAll();

  const names = Object.keys(libraries);
  console.log(`workload: next ${COUNT} occurrences in ${ZONE} after ${START.toISOString()}`);
  console.log(
    `node ${process.version}; first zonecron call (zone table + parse): ${coldMs.toFixed(1)} ms\n`,
  );
  console.log(
    `${'expression'.padEnd(16)}${names.map((n) => n.padStart(14)).join('')}   x croner   x cron-parser`,
  );
  const rows = [...EXPRESSIONS, 'overall'];
  for (const expression of rows) {
    const rate = (name: string): number => {
      const rates = results.get(name) as Map<string, number>;
      return expression === 'overall' ? overall(rates) : (rates.get(expression) as number);
    };
    const cells = names.map((name) => `${format(rate(name))}/s`).join('');
    const ratioCroner = rate('zonecron') / rate('croner');
    const ratioParser = rate('zonecron') / rate('cron-parser');
    console.log(
      `${expression.padEnd(16)}${cells}${ratioCroner.toFixed(0).padStart(10)}x${ratioParser.toFixed(0).padStart(14)}x`,
    );
  }

  // Sanity: the instants agree wherever no DST slot is involved.
  console.log('\nsanity check (instants compared with both libraries):');
  for (const expression of EXPRESSIONS) {
    const ours = nextOccurrences({ cron: expression, timezone: ZONE }, START, COUNT);
    const croner = new Set(libraries.croner?.(expression));
    const parser = new Set(libraries['cron-parser']?.(expression));
    let agree = 0;
    const disagreements: string[] = [];
    for (const occurrence of ours) {
      const at = occurrence.at.getTime();
      if (croner.has(at) && parser.has(at)) agree++;
      else if (occurrence.dst === 'none') disagreements.push(occurrence.at.toISOString());
    }
    const dst = ours.filter((o) => o.dst !== 'none').length;
    console.log(
      `  ${expression.padEnd(14)} ${agree}/${ours.length} identical; ${dst} runs at DST slots (policy-dependent); ${disagreements.length} non-DST disagreements${disagreements.length > 0 ? `: ${disagreements.slice(0, 3).join(', ')}` : ''}`,
    );
  }

  // Memory and throughput of a whole year of minutes.
  {
    const spec = { cron: '* * * * *', timezone: ZONE };
    const from = new Date('2025-12-31T23:00:00Z');
    const to = new Date('2026-12-31T23:00:00Z');
    occurrencesBetween(spec, from, new Date('2026-01-02T00:00:00Z')); // warm-up
    const heapBefore = process.memoryUsage().heapUsed;
    const startMs = performance.now();
    const runs = occurrencesBetween(spec, from, to);
    const elapsedMs = performance.now() - startMs;
    const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 1e6;
    console.log(
      `\noccurrencesBetween('* * * * *', ${ZONE}, all of 2026): ${runs.length.toLocaleString('en-US')} runs in ${elapsedMs.toFixed(0)} ms, heap +${heapMb.toFixed(0)} MB (${((heapMb * 1e6) / runs.length).toFixed(0)} bytes per run, the result itself)`,
    );
  }

  // The zone tables: what reading the platform's offsets costs per zone-year.
  {
    const zones = Intl.supportedValuesOf('timeZone').filter((_, i) => i % 4 === 0);
    const rounds: number[] = [];
    for (let round = 0; round < 3; round++) {
      const startMs = performance.now();
      for (const zone of zones) {
        createEngine().zoneTransitions(
          zone,
          new Date('1990-01-01T00:00Z'),
          new Date('2030-01-01T00:00Z'),
        );
      }
      rounds.push((performance.now() - startMs) / (zones.length * 40));
    }
    console.log(
      `zone tables: ${zones.length} zones x 40 years, a fresh engine each: ${median(rounds).toFixed(3)} ms per zone-year (median of 3)`,
    );
  }

  // "Never" and "years away": how long nextRun takes to prove a schedule has no run (searching to
  // the bound, 2600-01-04) and to find a run decades off, each with a fresh engine (its own,
  // empty zone tables).
  {
    const cases: [string, ScheduleSpec][] = [
      ['never', { cron: '30 2 * 3 0L', timezone: ZONE, dst: { gap: 'skip' } }],
      ['years away', { cron: '0 0 * 2 1#5', timezone: ZONE }],
    ];
    for (const [label, spec] of cases) {
      const rounds: number[] = [];
      let answer = '';
      for (let round = 0; round < 21; round++) {
        const startMs = performance.now();
        const found = createEngine().nextRun(spec, START);
        rounds.push(performance.now() - startMs);
        answer = found.kind === 'runs' ? found.next.at.toISOString() : 'never';
      }
      console.log(
        `nextRun('${spec.cron}'${spec.dst ? ', gap skip' : ''}) ${label}: ${answer}; first ${(rounds[0] as number).toFixed(1)} ms, then median ${median(rounds.slice(1)).toFixed(1)} ms of 20, a fresh engine each`,
      );
    }
  }
}

// Calendars: the same schedules with and without a business calendar (Berlin's weekends and
// DE-BE public holidays of 2026-2030 from date-holidays, a year-end freeze as a closed range),
// each call every run of 2026 through 2028 (occurrencesBetween): skip, following, and
// businessDay -1 (the last business day; only for expressions whose day fields are `*`). The
// ratio is the time of a call with the calendar over the same call without one (target: at most
// 2x). A window, not a count of runs: 1,000 runs of a last-business-day schedule span 83 years.
{
  const holidays = new Map<string, string>();
  const data = new Holidays('DE', 'BE');
  for (let year = 2026; year <= 2030; year++) {
    for (const holiday of data.getHolidays(year)) {
      if (holiday.type === 'public') holidays.set(holiday.date.slice(0, 10), holiday.name);
    }
  }
  const calendar: BusinessCalendar = {
    name: 'berlin-business',
    timezone: ZONE,
    weekendDays: [0, 6],
    closedDayReason: (date) => holidays.get(date),
    closedRanges: [{ from: '2026-12-28T00:00', to: '2027-01-04T00:00', reason: 'year-end freeze' }],
  };
  const modes: [string, CalendarRule | undefined][] = [
    ['none', undefined],
    ['skip', { calendar }],
    ['following', { calendar, onClosed: 'following' }],
    ['businessDay -1', { calendar, businessDay: -1 }],
  ];
  const END = new Date('2028-12-31T23:00:00Z');
  type Engine = ReturnType<typeof createEngine>;
  /**
   * Calls a spec for about `ms` milliseconds, untimed: the engine's zone tables are filled and
   * the JIT has compiled its paths before any call is counted or timed. Without it, the first
   * expression of a fresh process (as under `--calendar`) sized its rounds by a cold call, at
   * a few calls a round, and timed the compiler more than the engine.
   */
  const warm = (engine: Engine, spec: ScheduleSpec, ms: number): void => {
    const untilMs = performance.now() + ms;
    do engine.occurrencesBetween(spec, START, END);
    while (performance.now() < untilMs);
  };
  /** Calls per round on a warm engine: enough for a round of the spec to last about 30 ms. */
  const callsFor = (engine: Engine, spec: ScheduleSpec): number => {
    let calls = 1;
    for (let spent = 0; spent < 30; calls *= 2) {
      const startMs = performance.now();
      for (let i = 0; i < calls; i++) engine.occurrencesBetween(spec, START, END);
      spent = performance.now() - startMs;
    }
    return calls;
  };
  /**
   * Median ms of a call of each spec, and the median ratio of each to the first: rounds take
   * turns spec by spec, so a load spike on a shared machine hits them alike.
   */
  const timeOf = (specs: ScheduleSpec[]): { ms: number[]; ratios: number[] } => {
    const engines = specs.map(() => createEngine());
    for (const [i, spec] of specs.entries()) warm(engines[i] as Engine, spec, 100);
    const calls = callsFor(engines[0] as Engine, specs[0] as ScheduleSpec);
    const times: number[][] = specs.map(() => []);
    for (let round = 0; round < 9; round++) {
      specs.forEach((spec, i) => {
        const engine = engines[i] as Engine;
        const startMs = performance.now();
        for (let call = 0; call < calls; call++) engine.occurrencesBetween(spec, START, END);
        times[i]?.push((performance.now() - startMs) / calls);
      });
    }
    const base = times[0] as number[];
    return {
      ms: times.map(median),
      ratios: times.map((t) => median(t.map((ms, round) => ms / (base[round] as number)))),
    };
  };
  console.log(
    `\ncalendars: ms per call for every run in ${START.toISOString().slice(0, 10)}..${END.toISOString().slice(0, 10)} (median of 9 rounds taking turns), and the median ratio to the same schedule without a calendar`,
  );
  console.log(`${'expression'.padEnd(16)}${modes.map(([name]) => name.padStart(22)).join('')}`);
  const worst = new Map<string, number>();
  for (const expression of EXPRESSIONS) {
    const fields = expression.split(' ');
    const applies = modes.filter(
      ([, rule]) => rule?.businessDay === undefined || (fields[2] === '*' && fields[4] === '*'),
    );
    const specs = applies.map(
      ([, rule]): ScheduleSpec => ({
        cron: expression,
        timezone: ZONE,
        ...(rule === undefined ? {} : { calendar: rule }),
      }),
    );
    const { ms, ratios } = timeOf(specs);
    const cells = modes.map(([name]) => {
      const i = applies.findIndex(([applied]) => applied === name);
      if (i < 0) return 'n/a'.padStart(22);
      if (i === 0) return `${(ms[0] as number).toFixed(3)} ms`.padStart(22);
      const ratio = ratios[i] as number;
      worst.set(name, Math.max(worst.get(name) ?? 0, ratio));
      return `${(ms[i] as number).toFixed(3)} ms ${ratio.toFixed(2)}x`.padStart(22);
    });
    console.log(`${expression.padEnd(16)}${cells.join('')}`);
  }
  console.log(
    `worst ratio: ${[...worst].map(([name, ratio]) => `${name} ${ratio.toFixed(2)}x`).join(', ')}`,
  );
}
