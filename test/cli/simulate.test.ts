import { afterEach, describe, expect, it } from 'vitest';
import { LINE_WRAP_ON, SHOW_CURSOR } from '../../cli/interrupt.ts';
import { periodBucket } from '../../functions/schedule/index.ts';
import {
  hasAnsi,
  overlongLines,
  runCli,
  startCliOnTerminal,
  type TerminalSession,
} from './run-cli.ts';

const FIXTURE = 'test/cli/fixtures/berlin.yaml';
const HIDE_CURSOR = '\u001b[?25l';
const LINE_WRAP_OFF = '\u001b[?7l';

interface SimulationJson {
  runs: { jobId: string; at: string; nominal: string; dst: string; key: string }[];
  duplicatesSuppressed: number;
}

async function simulateJson(args: string[]): Promise<SimulationJson> {
  const result = await runCli(['simulate', '--config', FIXTURE, ...args, '--json']);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  // Exactly one JSON document, nothing else on stdout.
  return JSON.parse(result.stdout) as SimulationJson;
}

describe('zonecron simulate', () => {
  it('runs the Berlin job once at 03:30 CEST on the spring-forward night and refuses every duplicate tick', async () => {
    const doc = await simulateJson([
      '--from',
      '2023-03-25T12:00Z',
      '--to',
      '2023-03-26T12:00Z',
      '--duplicate-ticks',
      '3',
    ]);
    const berlin = doc.runs.filter((r) => r.jobId === 'berlin-nightly');
    expect(berlin).toEqual([
      {
        jobId: 'berlin-nightly',
        at: '2023-03-26T01:30:00.000Z',
        nominal: '2023-03-26T02:30',
        dst: 'gap',
        key: periodBucket('berlin-nightly', new Date('2023-03-26T01:30:00.000Z')),
      },
    ]);
    const london = doc.runs
      .filter((r) => r.jobId === 'london-half-hourly')
      .map((r) => [r.at, r.nominal]);
    // A cadence follows elapsed time: every half hour of the 24 h window runs, and the local
    // slots 01:00 and 01:30, which do not exist, are simply not among them.
    expect(london).toHaveLength(48);
    expect(london.slice(23, 27)).toEqual([
      ['2023-03-26T00:00:00.000Z', '2023-03-26T00:00'],
      ['2023-03-26T00:30:00.000Z', '2023-03-26T00:30'],
      ['2023-03-26T01:00:00.000Z', '2023-03-26T02:00'],
      ['2023-03-26T01:30:00.000Z', '2023-03-26T02:30'],
    ]);
    expect(new Set(doc.runs.map((r) => r.key)).size).toBe(doc.runs.length);
    expect(doc.runs.some((r) => r.jobId === 'switched-off')).toBe(false);
    // Each tick that stands for a run arrived 3 times: 2 refused per run.
    expect(doc.duplicatesSuppressed).toBe(2 * doc.runs.length);
  });

  it('runs the Berlin job once, at the first 02:30, on the fall-back night', async () => {
    const doc = await simulateJson(['--from', '2023-10-28T12:00Z', '--to', '2023-10-29T12:00Z']);
    expect(doc.runs.filter((r) => r.jobId === 'berlin-nightly')).toEqual([
      {
        jobId: 'berlin-nightly',
        at: '2023-10-29T00:30:00.000Z',
        nominal: '2023-10-29T02:30',
        dst: 'overlap',
        key: periodBucket('berlin-nightly', new Date('2023-10-29T00:30:00.000Z')),
      },
    ]);
    const repeated = doc.runs
      .filter((r) => r.jobId === 'london-half-hourly' && r.dst === 'overlap')
      .map((r) => [r.at, r.nominal]);
    expect(repeated).toEqual([
      ['2023-10-29T00:00:00.000Z', '2023-10-29T01:00'],
      ['2023-10-29T00:30:00.000Z', '2023-10-29T01:30'],
      ['2023-10-29T01:00:00.000Z', '2023-10-29T01:00'],
      ['2023-10-29T01:30:00.000Z', '2023-10-29T01:30'],
    ]);
    expect(doc.duplicatesSuppressed).toBe(doc.runs.length);
  });

  it('by default covers the next spring-forward and fall-back nights and tells the story in words', async () => {
    const result = await runCli(['simulate', '--config', FIXTURE, '--after', '2023-01-01T00:00Z']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(hasAnsi(result.stdout)).toBe(false);
    expect(overlongLines(result.stdout)).toEqual([]);
    // Notes wrapped onto a second line are indented by 6 or more spaces: join them.
    const text = result.stdout.replace(/\n {6,}(?=[a-z(])/g, ' ');
    expect(text).toContain('  1. 2023-03-25T01:00Z → 2023-03-27T01:00Z');
    expect(text).toContain('  2. 2023-10-28T01:00Z → 2023-10-30T01:00Z');
    expect(text).toContain(
      '02:30 does not exist on 2023-03-26 in Europe/Berlin — runs at 03:30 CEST',
    );
    expect(text).toContain(
      '02:30 happens twice on 2023-10-29 in Europe/Berlin — runs at the first (CEST)',
    );
    expect(text).toMatch(/Sun 2023-03-26 03:30 \+02:00 CEST +2023-03-26T01:30:00Z +[0-9a-f]{8} +1/);
    expect(text).toContain('switched-off: disabled, not simulated');
    // The legend, once, before the first job.
    expect(text.match(/^How to read it$/gm)).toEqual(['How to read it']);
    expect(text.indexOf('How to read it')).toBeLessThan(text.indexOf('\nberlin-nightly ·'));
    expect(text).toMatch(/^ {2}key {2,}the run's ledger key/m);
    expect(text).toMatch(/^ {2}sweeps {2,}the dispatcher's one-minute safety net/m);
    expect(text).toMatch(/✓ [\d,]+ runs delivered: every run the engine expects, exactly once/);
    expect(text).toMatch(/✓ [\d,]+ duplicate deliveries refused by the ledger/);
  });

  it('says why a weekday job has no run in a weekend window, and leaves the legend out with --no-legend', async () => {
    const result = await runCli([
      'simulate',
      '--config',
      'test/cli/fixtures/weekdays.yaml',
      '--from',
      '2027-03-13T07:00Z',
      '--to',
      '2027-03-15T07:00Z',
      '--no-legend',
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(overlongLines(result.stdout)).toEqual([]);
    expect(result.stdout).not.toContain('How to read it');
    expect(result.stdout.replace(/\s+/g, ' ')).toContain(
      ' window: 0 runs — the schedule has none between Sat 2027-03-13 02:00 and Mon' +
        ' 2027-03-15 03:00 local (at 09:00 on Monday through Friday) ',
    );
  });

  describe('--faults', () => {
    const NIGHT = ['--from', '2023-03-25T23:00Z', '--to', '2023-03-26T03:00Z'];
    const FAULTS = 'test/cli/fixtures/faults.yaml';

    it('prints how every run ended, the signals and every invariant in the JSON document', async () => {
      const result = await runCli([
        'simulate',
        '--config',
        FIXTURE,
        ...NIGHT,
        '--faults',
        FAULTS,
        '--json',
      ]);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const doc = JSON.parse(result.stdout) as Record<string, unknown> & {
        outcomes: { jobId: string; status: string; reason: string | null }[];
        invariants: { name: string; ok: boolean; detail: string }[];
      };
      expect(Object.keys(doc)).toEqual([
        'runs',
        'duplicatesSuppressed',
        'outcomes',
        'deadLetters',
        'signals',
        'invariants',
        'notifications',
        'operator',
        'hostile',
      ]);
      // 8 half-hours of London and Berlin's 02:30, which runs at 03:30 CEST (01:30Z).
      expect(doc.outcomes).toHaveLength(9);
      expect(doc.outcomes.find((o) => o.jobId === 'berlin-nightly')).toMatchObject({
        at: '2023-03-26T01:30:00.000Z',
        nominal: '2023-03-26T02:30',
      });
      expect(doc.outcomes.filter((o) => o.reason === 'paused')).not.toHaveLength(0);
      expect(Object.keys(doc.signals as object)).toEqual([
        'missed',
        'late',
        'stuck',
        'deadLettered',
        'deadlineMissed',
        'redelivered',
      ]);
      expect(doc.invariants.filter((i) => !i.ok)).toEqual([]);
      expect(doc.invariants.map((i) => i.name)).toContain('every run ended');
    });

    it('shows the faults injected and each invariant with a mark', async () => {
      const result = await runCli(['simulate', '--config', FIXTURE, ...NIGHT, '--faults', FAULTS]);
      expect(result.code).toBe(0);
      expect(overlongLines(result.stdout)).toEqual([]);
      expect(result.stdout).toContain(`Faults injected (${FAULTS}, seed 7)`);
      expect(result.stdout).toMatch(/\d+ events? lost to outages · \d+ ticks? late/);
      expect(result.stdout).toContain('  ✓ every run ended: 9 of 9 runs delivered');
      const invariants = result.stdout.slice(result.stdout.indexOf('\nInvariants\n'));
      expect(invariants.match(/^ {2}[✓✗] /gm)).toEqual(Array(13).fill('  ✓ '));
    });

    it('reports a bad plan at its file, line and column, like a bad jobs file', async () => {
      const result = await runCli([
        'simulate',
        '--config',
        FIXTURE,
        '--faults',
        'test/cli/fixtures/bad-faults.yaml',
      ]);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        'test/cli/fixtures/bad-faults.yaml:3:14: field \'crashes.0.point\': Invalid option: expected one of "after-claim"|"after-delivery"\n' +
          'zonecron: error: 1 problem in test/cli/fixtures/bad-faults.yaml\n',
      );
    });
  });

  describe('--faults replaying a history', () => {
    const REPLAY = [
      'simulate',
      '--config',
      'test/fixtures/simulation/replay-jobs.yaml',
      '--from',
      '2027-03-28T00:00Z',
      '--to',
      '2027-03-28T12:00Z',
      '--faults',
      'test/fixtures/simulation/replay-faults.yaml',
    ];

    it('lists every notification sent in the JSON document, with kind, job, runs, first, last and sentAt', async () => {
      const result = await runCli([...REPLAY, '--json']);
      const doc = JSON.parse(result.stdout) as {
        outcomes: Record<string, unknown>[];
        invariants: { ok: boolean }[];
        notifications: Record<string, unknown>[];
        operator: { action: string; ok: boolean }[];
        hostile: { kind: string }[];
      };
      // Exit code 1 exactly when an invariant broke (the command says which on stderr).
      expect(result.code).toBe(doc.invariants.every((i) => i.ok) ? 0 : 1);
      for (const o of doc.outcomes) {
        expect(o).toEqual(
          expect.objectContaining({
            jobId: expect.any(String),
            at: expect.stringMatching(/Z$/),
            status: expect.stringMatching(/^(delivered|dead-lettered|skipped)$/),
            reason: expect.toBeOneOf([null, expect.any(String)]),
            deliveries: expect.any(Number),
          }),
        );
      }
      expect(doc.notifications).toContainEqual({
        kind: 'dead-lettered',
        jobId: 'sync',
        runs: 1,
        first: '2027-03-28T03:00:00.000Z',
        last: '2027-03-28T03:00:00.000Z',
        sentAt: '2027-03-28T03:03:00.200Z',
      });
      for (const n of doc.notifications) {
        expect(Object.keys(n)).toEqual(['kind', 'jobId', 'runs', 'first', 'last', 'sentAt']);
      }
      expect(doc.operator.map((o) => o.action)).toEqual([
        'pause',
        'resume',
        'pause',
        'backfill',
        'run',
        'redrive',
        'discard',
        'resume',
        'pause',
        'resume',
      ]);
      expect(doc.hostile).toHaveLength(5);
    });

    it('says in the text report what the operators and the hostile events did', async () => {
      const result = await runCli(REPLAY);
      expect(overlongLines(result.stdout)).toEqual([]);
      expect(result.stdout.replace(/\s+/g, ' ')).toContain(
        '10 operator actions (0 refused or failed) · 5 hostile events (5 counted by the functions, 0 thrown)',
      );
    });

    it('reports a job an operator action names that is not deployed, with the closest id', async () => {
      const result = await runCli([
        'simulate',
        '--config',
        FIXTURE,
        '--faults',
        'test/cli/fixtures/bad-replay-faults.yaml',
      ]);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        "test/cli/fixtures/bad-replay-faults.yaml:3:53: field 'operator.0.job': unknown job 'berlin-nightli'; did you mean 'berlin-nightly'? (jobs: berlin-nightly, london-half-hourly, switched-off)\n" +
          'zonecron: error: 1 problem in test/cli/fixtures/bad-replay-faults.yaml\n',
      );
    });
  });

  describe('Ctrl-C', () => {
    let session: TerminalSession | undefined;
    afterEach(() => session?.stop());

    it('takes the progress bar down, shows the cursor, turns line wrap back on and exits with 130', async () => {
      // A year of sweeps: far from done when the progress bar first shows.
      session = startCliOnTerminal([
        'simulate',
        '--config',
        FIXTURE,
        '--from',
        '2027-01-01T00:00Z',
        '--to',
        '2027-12-31T00:00Z',
      ]);
      await session.shown('simulating |');
      session.type('\u0003');
      const { output, code, signal } = await session.ended();
      // The bar hid the cursor and turned wrap off; the last word on each is the restore.
      expect(output).toContain(HIDE_CURSOR);
      expect(output).toContain(LINE_WRAP_OFF);
      expect(output.lastIndexOf(SHOW_CURSOR)).toBeGreaterThan(output.lastIndexOf(HIDE_CURSOR));
      expect(output.lastIndexOf(LINE_WRAP_ON)).toBeGreaterThan(output.lastIndexOf(LINE_WRAP_OFF));
      expect({ code, signal }).toEqual({ code: 130, signal: null });
      // Stopped in the middle: no report.
      expect(output).not.toContain('Summary');
    });
  });
});
