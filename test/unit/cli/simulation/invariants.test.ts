import { describe, expect, it } from 'vitest';
import type { DeadLetterMessage } from '#jobs/dead-letters.ts';
import type { JobDefinition } from '#jobs/job.ts';
import type { RunItem } from '#ledger/index.ts';
import {
  atMostOnce,
  catchupPolicyHeld,
  checkInvariants,
  deadLettersOnce,
  everyRunEnded,
  everyRunOnce,
  forbidHeld,
  overlapSkipsTrue,
  pausedNotDelivered,
  signalsOnce,
} from '../../../../cli/simulation/invariants.ts';
import { type OutcomeInput, runOutcomes } from '../../../../cli/simulation/outcomes.ts';
import { makeJob } from '../../../support/jobs.ts';
import {
  at,
  cleanInput,
  delivery,
  hold,
  hourly,
  item,
  keyOf,
  notified,
} from '../../../support/simulation-input.ts';

const withItem = (input: OutcomeInput, run: RunItem): OutcomeInput => ({
  ...input,
  items: new Map([...input.items, [run.key, run]]),
});

const deadLetter = (run: RunItem): DeadLetterMessage =>
  ({ version: 1, reason: 'delivery-failed', key: run.key, jobId: run.jobId }) as DeadLetterMessage;

describe('the invariants on a clean run', () => {
  it('all hold, including every run exactly once without faults', () => {
    const input = cleanInput({ faulted: false });
    const invariants = checkInvariants(input, runOutcomes(input));
    expect(invariants.filter((i) => !i.ok)).toEqual([]);
    expect(invariants.map((i) => i.name)).toContain(
      'every run the engine expects delivered exactly once',
    );
  });

  it('leave out exactly-once delivery when faults were injected', () => {
    const input = cleanInput({ faulted: true });
    expect(checkInvariants(input, runOutcomes(input)).map((i) => i.name)).not.toContain(
      'every run the engine expects delivered exactly once',
    );
  });
});

describe('every run ended', () => {
  it('fails for a run still claimed, and for a run nobody decided', () => {
    const claimed = withItem(cleanInput(), item(hourly, '10:00', { status: 'claimed' }));
    expect(everyRunEnded(runOutcomes(claimed))).toMatchObject({ ok: false });
    const undecided = cleanInput({ items: new Map() });
    expect(everyRunEnded(runOutcomes(undecided)).detail).toContain('undecided');
  });
});

describe('at most once', () => {
  const twice = cleanInput({
    deliveries: [...cleanInput().deliveries, delivery(hourly, '10:00', 120, 'req-again', 2)],
  });

  it('fails for a run delivered twice without a counted redelivery', () => {
    expect(atMostOnce(twice, runOutcomes(twice)).ok).toBe(false);
  });

  it('holds when the second delivery was counted Redelivered', () => {
    const counted = { ...twice, redelivered: new Map([[keyOf(hourly, '10:00'), 1]]) };
    expect(atMostOnce(counted, runOutcomes(counted)).ok).toBe(true);
  });
});

describe('one dead letter per dead-lettered run', () => {
  const dead = item(hourly, '10:00', { status: 'failed', failure: 'delivery' });
  const base = withItem(cleanInput({ deliveries: [] }), dead);

  it('fails for a dead-lettered run without its message, or with two', () => {
    expect(deadLettersOnce(base, runOutcomes(base)).ok).toBe(false);
    const two = { ...base, deadLetters: [deadLetter(dead), deadLetter(dead)] };
    expect(deadLettersOnce(two, runOutcomes(two)).ok).toBe(false);
  });

  it('fails for a message about a run that was not dead-lettered', () => {
    const input = cleanInput({ deadLetters: [deadLetter(item(hourly, '11:00'))] });
    expect(deadLettersOnce(input, runOutcomes(input)).ok).toBe(false);
  });

  it('holds with exactly one message', () => {
    const one = { ...base, deadLetters: [deadLetter(dead)] };
    expect(deadLettersOnce(one, runOutcomes(one)).ok).toBe(true);
  });
});

describe('paused', () => {
  it('fails when a run of the paused stretch was delivered', () => {
    const input = cleanInput({
      pauses: [{ job: hourly.id, from: at('09:30'), to: at('10:30') }],
    });
    expect(pausedNotDelivered(input, runOutcomes(input)).ok).toBe(false);
  });
});

describe('concurrency forbid', () => {
  const forbid: JobDefinition = { ...hourly, concurrency: 'forbid' };
  const slow = (finishedAfterSeconds: number) =>
    cleanInput({
      jobs: [forbid],
      completions: new Map([
        ['req-10:00', new Date(at('10:00').getTime() + finishedAfterSeconds * 1000)],
        ['req-11:00', new Date(at('11:00').getTime() + 60_000)],
      ]),
    });

  it('fails when a run starts before the previous one finished', () => {
    // The 10:00 run finished at 11:00:30, inside its 2 h maxRuntime; the 11:00 run started
    // at 11:00:01.
    const long: JobDefinition = { ...forbid, maxRuntimeSeconds: 7200 };
    expect(forbidHeld({ ...slow(3630), jobs: [long] }).ok).toBe(false);
  });

  it('holds when the previous run ran out of maxRuntime (30 m) before the next started', () => {
    expect(forbidHeld(slow(3630)).ok).toBe(true);
  });

  it('holds when the previous run finished first', () => {
    expect(forbidHeld(slow(600)).ok).toBe(true);
  });
});

describe('skipped for overlap', () => {
  const forbid: JobDefinition = { ...hourly, concurrency: 'forbid', maxRuntimeSeconds: 7200 };
  const skippedAt1100 = (over: Partial<OutcomeInput>) =>
    cleanInput({
      jobs: [forbid],
      deliveries: [delivery(forbid, '10:00', 1, 'req-10:00')],
      items: new Map([
        [keyOf(forbid, '10:00'), item(forbid, '10:00')],
        [
          keyOf(forbid, '11:00'),
          item(forbid, '11:00', { status: 'skipped', skipReason: 'overlap' }),
        ],
      ]),
      overlapSkips: [
        { key: keyOf(forbid, '11:00'), at: at('11:00'), runningKey: keyOf(forbid, '10:00') },
      ],
      ...over,
    });

  it('fails when the run holding the slot had been reported finished', () => {
    const reported = new Map([['req-10:00', at('10:40')]]);
    expect(overlapSkipsTrue(skippedAt1100({ reported })).ok).toBe(false);
  });

  it('holds while the previous run still runs', () => {
    const reported = new Map([['req-10:00', at('11:30')]]);
    expect(overlapSkipsTrue(skippedAt1100({ reported })).ok).toBe(true);
  });

  it('holds while the slot is held by a run whose dispatcher died holding it', () => {
    const input = skippedAt1100({
      deliveries: [],
      reported: new Map(),
      slotHolds: [hold(forbid, '10:00', { orphaned: true })],
    });
    expect(overlapSkipsTrue(input).ok).toBe(true);
    const released = {
      ...input,
      slotHolds: [hold(forbid, '10:00', { released: true, releasedAt: at('10:05') })],
    };
    expect(overlapSkipsTrue(released).ok).toBe(false);
  });

  it('holds while the holder was being delivered: it gave the slot back at that same instant', () => {
    const input = skippedAt1100({
      deliveries: [],
      reported: new Map(),
      slotHolds: [
        hold(forbid, '11:00', {
          key: keyOf(forbid, '10:00'),
          released: true,
          releasedAt: at('11:00'),
        }),
      ],
    });
    expect(overlapSkipsTrue(input).ok).toBe(true);
  });
});

describe('catch-up policies', () => {
  const caught = (job: JobDefinition, hhmms: readonly string[], decidedAt: Date) =>
    cleanInput({
      jobs: [job],
      expected: new Map(),
      items: new Map(hhmms.map((h) => [keyOf(job, h), item(job, h, { origin: 'sweep' })])),
      deliveries: hhmms.map((h) =>
        delivery(job, h, (decidedAt.getTime() - at(h).getTime()) / 1000, `d-${h}`),
      ),
      firstClaims: new Map(hhmms.map((h) => [keyOf(job, h), { at: decidedAt, invocation: 1 }])),
    });
  const latest = makeJob({ id: 'latest', schedule: '*/10 * * * *', catchup: { policy: 'latest' } });
  const capped = makeJob({ id: 'capped', schedule: '*/10 * * * *', catchup: { maxRuns: 2 } });
  const none = makeJob({ id: 'none', schedule: '*/10 * * * *', catchup: { policy: 'none' } });

  it('fails when latest catches up two runs at once', () => {
    expect(catchupPolicyHeld(caught(latest, ['10:10', '10:20'], at('10:40'))).ok).toBe(false);
  });

  it('fails when all catches up more than maxRuns at once', () => {
    const three = caught(capped, ['10:10', '10:20', '10:30'], at('10:40'));
    expect(catchupPolicyHeld(three).ok).toBe(false);
    expect(catchupPolicyHeld(caught(capped, ['10:10', '10:20'], at('10:40'))).ok).toBe(true);
  });

  it('holds when two catch-ups, each within maxRuns, decide at the same instant', () => {
    const three = caught(capped, ['10:10', '10:20', '10:30'], at('10:40'));
    const twoDecisions = {
      ...three,
      firstClaims: new Map(
        [...three.firstClaims].map(([key, claim], i) => [
          key,
          { ...claim, invocation: i === 2 ? 2 : 1 },
        ]),
      ),
    };
    expect(catchupPolicyHeld(twoDecisions).ok).toBe(true);
  });

  it('fails when none catches anything up', () => {
    expect(catchupPolicyHeld(caught(none, ['10:10'], at('10:40'))).ok).toBe(false);
  });

  it('fails when latest catches up a run older than one delivered before the decision', () => {
    const input = caught(latest, ['10:10'], at('10:40'));
    const newer = {
      ...input,
      deliveries: [...input.deliveries, delivery(latest, '10:20', 1, 'd-new')],
    };
    expect(catchupPolicyHeld(newer).ok).toBe(false);
    expect(catchupPolicyHeld(input).ok).toBe(true);
  });
});

describe('signals', () => {
  const run = item(hourly, '10:00');

  it('fails when one signal is notified twice for a run', () => {
    const late = cleanInput({
      deliveries: [
        delivery(hourly, '10:00', 400, 'req-10:00'),
        delivery(hourly, '11:00', 1, 'req-11:00'),
      ],
      notifications: [notified(run, 'late', at('10:07')), notified(run, 'late', at('10:09'))],
    });
    expect(signalsOnce(late, runOutcomes(late)).ok).toBe(false);
  });

  it('fails for late about a run delivered within its grace', () => {
    const input = cleanInput({ notifications: [notified(run, 'late', at('10:06'))] });
    expect(signalsOnce(input, runOutcomes(input)).ok).toBe(false);
  });

  it('fails for missed about a run its own tick delivered', () => {
    const input = cleanInput({ notifications: [notified(run, 'missed', at('10:06'))] });
    expect(signalsOnce(input, runOutcomes(input)).ok).toBe(false);
  });

  it('fails for stuck about a run that had finished, and holds for one that had not', () => {
    const finished = cleanInput({ notifications: [notified(run, 'stuck', at('10:31'))] });
    expect(signalsOnce(finished, runOutcomes(finished)).ok).toBe(false);
    const running = { ...finished, completions: new Map([['req-10:00', at('10:45')]]) };
    expect(signalsOnce(running, runOutcomes(running)).ok).toBe(true);
  });

  it('fails for overlap about the first run an incident skipped, and holds for the second', () => {
    const holder = keyOf(hourly, '09:00');
    const skipped = (hhmm: string) =>
      item(hourly, hhmm, { status: 'skipped', skipReason: 'overlap' });
    const runs = ['10:00', '11:00'];
    const input = cleanInput({
      items: new Map(runs.map((hhmm) => [keyOf(hourly, hhmm), skipped(hhmm)])),
      deliveries: [],
      overlapSkips: runs.map((hhmm) => ({
        key: keyOf(hourly, hhmm),
        at: at(hhmm),
        runningKey: holder,
      })),
    });
    const first = { ...input, notifications: [notified(skipped('10:00'), 'overlap', at('10:00'))] };
    expect(signalsOnce(first, runOutcomes(first)).ok).toBe(false);
    const second = {
      ...input,
      notifications: [notified(skipped('11:00'), 'overlap', at('11:00'))],
    };
    expect(signalsOnce(second, runOutcomes(second)).ok).toBe(true);
  });
});

describe('every run exactly once', () => {
  it('fails when a run was delivered twice or not at all', () => {
    const input = cleanInput({
      deliveries: [delivery(hourly, '10:00', 1, 'a'), delivery(hourly, '10:00', 2, 'b')],
    });
    expect(everyRunOnce(runOutcomes(input)).ok).toBe(false);
  });
});
