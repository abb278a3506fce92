import { describe, expect, it } from 'vitest';
import type { DeadLetterMessage } from '#jobs/dead-letters.ts';
import type { JobDefinition } from '#jobs/job.ts';
import type { RunItem } from '#ledger/index.ts';
import type { HostileRecord } from '../../../../cli/simulation/action-records.ts';
import { deploymentsOf } from '../../../../cli/simulation/deployments.ts';
import {
  catchupPerGap,
  catchupPolicyHeld,
  checkInvariants,
  deadLettersOnce,
  forbidHeld,
  forgeriesChangeNothing,
  hostileDeliverNothing,
  hostileNeverThrown,
  onlyRunsDelivered,
  pausedNotDelivered,
  signalsOnce,
} from '../../../../cli/simulation/invariants.ts';
import { type OutcomeInput, runOutcomes } from '../../../../cli/simulation/outcomes.ts';
import { makeJob } from '../../../support/jobs.ts';
import {
  at,
  cleanInput,
  delivery,
  hourly,
  item,
  keyOf,
  notified,
} from '../../../support/simulation-input.ts';

// The invariants of a replayed history: operators, hostile events, forged completions, gaps
// and deploys (docs/cli.md, "Faults").

const hostile = (over: Partial<HostileRecord> = {}): HostileRecord => ({
  index: 0,
  at: at('10:30').toISOString(),
  kind: 'forged-completion',
  jobId: hourly.id,
  to: 'recorder',
  key: keyOf(hourly, '10:00'),
  attempts: 1,
  result: 'ignored (status-succeeded)',
  counted: [],
  threw: null,
  deliveries: 0,
  recorded: false,
  ...over,
});

const withItem = (input: OutcomeInput, run: RunItem): OutcomeInput => ({
  ...input,
  items: new Map([...input.items, [run.key, run]]),
});

const deadLetter = (run: RunItem): DeadLetterMessage =>
  ({ version: 1, reason: 'delivery-failed', key: run.key, jobId: run.jobId }) as DeadLetterMessage;

describe('the invariants of a faulted simulation', () => {
  it('include those of forged completions, hostile events, gaps and runs that are no runs; a clean one keeps them all', () => {
    const input = cleanInput();
    const invariants = checkInvariants(input, runOutcomes(input));
    expect(invariants.filter((i) => !i.ok)).toEqual([]);
    expect(invariants.map((i) => i.name).slice(8)).toEqual([
      'nothing delivered that is not a run',
      'no forged completion changes a run',
      'no hostile event delivers a run',
      'hostile events ignored, never thrown',
      'at most catchup.maxRuns caught up per gap',
    ]);
  });
});

describe('no forged completion changes a run', () => {
  it('fails when the recorder recorded a forged completion', () => {
    expect(forgeriesChangeNothing(cleanInput({ hostile: [hostile({ recorded: true })] })).ok).toBe(
      false,
    );
    expect(forgeriesChangeNothing(cleanInput({ hostile: [hostile()] }))).toMatchObject({
      ok: true,
      detail: '1 forged completion, none recorded',
    });
  });

  it('fails for a run succeeded or failed(execution) that no report of its own delivery ended', () => {
    // The 10:00 run succeeded at 10:00:05, but its target's report said 10:01:01.
    const forged = withItem(
      cleanInput(),
      item(hourly, '10:00', { completedAt: at('10:00').toISOString() }),
    );
    expect(forgeriesChangeNothing(forged).ok).toBe(false);
    const failed = withItem(
      cleanInput({ deliveries: [], completions: new Map(), reported: new Map() }),
      item(hourly, '10:00', { status: 'failed', failure: 'execution' }),
    );
    expect(forgeriesChangeNothing(failed).ok).toBe(false);
  });

  it("holds for a run ended by its own delivery's report", () => {
    const real = new Date(at('10:00').getTime() + 61_000).toISOString();
    const input = withItem(cleanInput(), item(hourly, '10:00', { completedAt: real }));
    expect(forgeriesChangeNothing(input).ok).toBe(true);
  });
});

describe('no hostile event delivers a run, and none is thrown', () => {
  it('fails when a target received a run while a hostile event was handled', () => {
    const tick = hostile({ kind: 'ancient-tick', to: 'dispatcher', deliveries: 1 });
    expect(hostileDeliverNothing(cleanInput({ hostile: [tick] })).ok).toBe(false);
    expect(hostileDeliverNothing(cleanInput({ hostile: [hostile()] })).ok).toBe(true);
  });

  it('fails when a function threw for a hostile event', () => {
    const deep = hostile({
      kind: 'deep-event',
      to: 'dispatcher',
      threw: 'RangeError: Maximum call stack size exceeded',
    });
    const broken = hostileNeverThrown(cleanInput({ hostile: [deep] }));
    expect(broken.ok).toBe(false);
    expect(broken.detail).toContain('deep-event to the dispatcher');
    expect(hostileNeverThrown(cleanInput({ hostile: [hostile()] })).ok).toBe(true);
  });
});

describe('at most catchup.maxRuns caught up per gap', () => {
  // Five runs of a ten-minute job; those the ticks did not deliver were caught up by sweeps.
  const gapInput = (job: JobDefinition, origins: Record<string, string>) => {
    const hhmms = Object.keys(origins);
    return cleanInput({
      jobs: [job],
      expected: new Map([
        [
          job.id,
          hhmms.map((h) => ({ at: at(h), nominal: `2027-03-28T${h}`, dst: 'none' as const })),
        ],
      ]),
      items: new Map(
        hhmms.map((h) => [
          keyOf(job, h),
          origins[h] === 'skipped'
            ? item(job, h, { status: 'skipped', skipReason: 'catch-up-latest', origin: 'sweep' })
            : item(job, h, { origin: origins[h] as 'tick' | 'sweep' }),
        ]),
      ),
      deliveries: hhmms
        .filter((h) => origins[h] !== 'skipped')
        .map((h) => delivery(job, h, 600, `d-${h}`)),
      firstClaims: new Map(
        hhmms.map((h, i) => [
          keyOf(job, h),
          { at: new Date(at(h).getTime() + 600_000), invocation: i },
        ]),
      ),
    });
  };
  const latest = makeJob({ id: 'latest', schedule: '*/10 * * * *', catchup: { policy: 'latest' } });

  it('fails when two catch-ups deliver two runs of one latest gap, though each delivered one', () => {
    const input = gapInput(latest, {
      '10:00': 'tick',
      '10:10': 'sweep',
      '10:20': 'skipped',
      '10:30': 'sweep',
      '10:40': 'tick',
    });
    expect(catchupPolicyHeld(input).ok).toBe(true);
    const perGap = catchupPerGap(input, runOutcomes(input));
    expect(perGap.ok).toBe(false);
    expect(perGap.detail).toContain(
      'latest: 2 caught up in the gap 2027-03-28T10:10:00.000Z to 2027-03-28T10:30:00.000Z',
    );
  });

  it('holds for one caught-up run per gap when a run its own tick delivered ends each gap', () => {
    const input = gapInput(latest, {
      '10:00': 'tick',
      '10:10': 'sweep',
      '10:20': 'tick',
      '10:30': 'sweep',
      '10:40': 'tick',
    });
    expect(catchupPerGap(input, runOutcomes(input))).toMatchObject({
      ok: true,
      detail: '2 gaps checked',
    });
  });

  it("counts no run an operator delivered as the dispatcher's catch-up", () => {
    const input = gapInput(latest, {
      '10:00': 'tick',
      '10:10': 'sweep',
      '10:20': 'sweep',
      '10:30': 'tick',
    });
    const byOperator = { ...input, deliveryCauses: new Map([['d-10:20', 'operator' as const]]) };
    expect(catchupPerGap(byOperator, runOutcomes(byOperator)).ok).toBe(true);
    expect(catchupPerGap(input, runOutcomes(input)).ok).toBe(false);
  });
});

describe('nothing delivered that is not a run', () => {
  it('fails for a run the schedules delivered that the engine does not expect in the window', () => {
    const input = cleanInput({
      deliveries: [...cleanInput().deliveries, delivery(hourly, '10:30', 1, 'stray')],
    });
    const found = onlyRunsDelivered(input, runOutcomes(input));
    expect(found.ok).toBe(false);
    expect(found.detail).toContain('hourly 2027-03-28T10:30:00.000Z');
  });

  it("holds for an operator's delivery, and for runs after the window", () => {
    const manual = cleanInput({
      deliveries: [...cleanInput().deliveries, delivery(hourly, '10:30', 1, 'manual')],
      deliveryCauses: new Map([['manual', 'operator']]),
    });
    expect(onlyRunsDelivered(manual, runOutcomes(manual)).ok).toBe(true);
    const after = cleanInput({
      windows: [{ from: at('09:00'), to: at('11:00') }],
      deliveries: [...cleanInput().deliveries, delivery(hourly, '11:30', 1, 'later')],
    });
    expect(onlyRunsDelivered(after, runOutcomes(after)).ok).toBe(true);
  });
});

describe('the older invariants, with operators and deploys', () => {
  it('take a run an operator redrove, its one message deleted, as no longer dead-lettered', () => {
    const dead = item(hourly, '10:00', { status: 'failed', failure: 'delivery' });
    const redriven = item(hourly, '10:00', { status: 'dispatched' });
    const input = withItem(cleanInput({ deadLetters: [deadLetter(dead)] }), redriven);
    expect(deadLettersOnce(input, runOutcomes(input)).ok).toBe(false);
    const deleted = { ...input, deadLettersDeleted: new Map([[dead.key, 1]]) };
    expect(deadLettersOnce(deleted, runOutcomes(deleted)).ok).toBe(true);
    // Its dead-lettered notification was true when it was sent.
    const told = { ...deleted, notifications: [notified(dead, 'dead-lettered', at('10:20'))] };
    expect(signalsOnce(told, runOutcomes(told)).ok).toBe(true);
  });

  it('take a paused run an operator delivered (a backfill, resume --catch-up) as no replay', () => {
    const input = cleanInput({ pauses: [{ job: hourly.id, from: at('09:30'), to: at('10:30') }] });
    expect(pausedNotDelivered(input, runOutcomes(input)).ok).toBe(false);
    const backfilled = { ...input, deliveryCauses: new Map([['req-10:00', 'operator' as const]]) };
    expect(pausedNotDelivered(backfilled, runOutcomes(backfilled)).ok).toBe(true);
  });

  it('hold concurrency forbid only while a deploy makes the job forbid', () => {
    // The 10:00 run runs until 11:00:30; a deploy at 10:30 makes the job concurrency allow.
    const forbid: JobDefinition = { ...hourly, concurrency: 'forbid', maxRuntimeSeconds: 7200 };
    const allow: JobDefinition = { ...forbid, concurrency: 'allow' };
    const deploys = [
      { id: 'deploy-1', at: at('10:30'), file: 'v2.yaml', jobs: [allow], retentionDays: 35 },
    ];
    const input = cleanInput({
      jobs: [allow],
      completions: new Map([
        ['req-10:00', new Date(at('11:00').getTime() + 30_000)],
        ['req-11:00', at('11:02')],
      ]),
    });
    const redeployed = {
      ...input,
      deployments: deploymentsOf([forbid], deploys, at('00:00').getTime()),
    };
    expect(forbidHeld(redeployed).ok).toBe(true);
    const stillForbid = { ...input, jobs: [forbid], deployments: deploymentsOf([forbid], [], 0) };
    expect(forbidHeld(stillForbid).ok).toBe(false);
  });
});
