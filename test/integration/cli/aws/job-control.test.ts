import { afterAll, describe, expect, inject, it } from 'vitest';
import {
  av,
  createDynamoLedger,
  LEDGER_BY_JOB_INDEX,
  LEDGER_BY_JOB_PARTITION_KEY,
} from '#ledger/index.ts';
import {
  applyPause,
  DisabledInConfigError,
  PauseEndInPastError,
  pauseJob,
  readPauseStates,
  resumeJob,
} from '../../../../cli/aws/job-control.ts';
import { createOperatorLog } from '../../../../cli/aws/operator-log.ts';
import { TestClock } from '../../../support/doubles.ts';
import { makeJob } from '../../../support/jobs.ts';
import { startContractStores } from '../../../support/ledger-stores.ts';

// One contract, two stores, as the ledger's own (test/integration/ledger/ledger.test.ts).
const contract = await startContractStores(inject('dynamoEndpoint'));
afterAll(() => contract.stop());

const NOW = '2026-11-29T09:00:00.000Z';
const job = makeJob({ id: 'nightly', schedule: '30 2 * * *' });

describe.each(contract.stores)('pause, resume and the operator log on %s', (_name, openStore) => {
  async function setup() {
    const store = await openStore();
    const clock = new TestClock(NOW);
    const ledger = createDynamoLedger(store);
    const log = createOperatorLog(store);
    return { store, clock, ledger, log, deps: { ledger, log, clock: clock.now } };
  }

  it('pauses with who, why and until when, reads it back as the pause state, and logs it', async () => {
    const { deps, ledger, log } = await setup();
    const until = new Date('2026-11-29T15:00:00Z');
    const state = await pauseJob(deps, { job, by: 'alice@laptop', reason: 'db migration', until });
    expect(state).toEqual({
      jobId: 'nightly',
      paused: true,
      pausedAt: NOW,
      pausedBy: 'alice@laptop',
      reason: 'db migration',
      until: until.toISOString(),
      ending: false,
    });
    const states = await readPauseStates(ledger, ['nightly', 'other'], new Date(NOW));
    expect(states.get('nightly')).toEqual(state);
    expect(states.get('other')).toEqual({ jobId: 'other', paused: false, ending: false });
    expect(await log.read('nightly', new Date(0), 10)).toEqual([
      {
        jobId: 'nightly',
        action: 'paused',
        at: NOW,
        by: 'alice@laptop',
        reason: 'db migration',
        until: until.toISOString(),
        detail: 'new pause',
      },
    ]);
  });

  it('re-pauses by changing only what is named: a bare pause changes nothing and records nothing, a new reason keeps the end', async () => {
    const { deps, log, clock } = await setup();
    const until = '2026-12-02T05:00:00.000Z';
    await pauseJob(deps, { job, by: 'alice@laptop', reason: 'INC-42', until: new Date(until) });
    clock.set('2026-11-29T10:00:00.000Z');
    const bare = await applyPause(deps, { job, by: 'bob@desk' });
    expect(bare).toMatchObject({
      change: 'none',
      state: { pausedAt: NOW, pausedBy: 'alice@laptop', reason: 'INC-42', until },
    });
    expect(await log.read('nightly', new Date(0), 10)).toHaveLength(1);

    const reasoned = await applyPause(deps, { job, by: 'bob@desk', reason: 'INC-42, runs late' });
    expect(reasoned).toEqual({
      change: 'updated',
      state: expect.objectContaining({
        pausedAt: NOW,
        pausedBy: 'bob@desk',
        reason: 'INC-42, runs late',
        until,
      }),
      detail:
        `re-pause (paused since ${NOW} by alice@laptop): until kept (${until}); ` +
        'reason INC-42 → INC-42, runs late',
    });
    expect((await log.read('nightly', new Date(0), 10))[0]).toMatchObject({
      action: 'paused',
      by: 'bob@desk',
      until,
      detail: reasoned.detail,
    });
  });

  it('re-pauses without an end only when told (until: null, --no-until), keeping the reason', async () => {
    const { deps } = await setup();
    await pauseJob(deps, { job, by: 'ops', reason: 'db', until: new Date('2026-11-30T00:00Z') });
    const open = await applyPause(deps, { job, by: 'ops', until: null });
    expect(open.state).toMatchObject({ paused: true, reason: 'db' });
    expect(open.state.until).toBeUndefined();
    expect(open.detail).toContain('until 2026-11-30T00:00:00.000Z → none; reason kept (db)');
  });

  it('reports a pause whose end has passed as ending: the dispatcher resumes it at the next tick', async () => {
    const { deps, ledger, clock } = await setup();
    await pauseJob(deps, {
      job,
      by: 'ops',
      reason: 'short',
      until: new Date('2026-11-29T09:30:00Z'),
    });
    clock.set('2026-11-29T09:31:00Z');
    const states = await readPauseStates(ledger, ['nightly'], clock.now());
    expect(states.get('nightly')).toMatchObject({ paused: true, ending: true });
  });

  it('refuses a pause end that is not in the future, with exit code 2, writing nothing', async () => {
    const { deps, ledger } = await setup();
    const until = new Date('2026-11-29T08:00:00Z');
    await expect(pauseJob(deps, { job, by: 'ops', reason: 'x', until })).rejects.toMatchObject({
      name: 'PauseEndInPastError',
      exitCode: 2,
      until,
    });
    await expect(pauseJob(deps, { job, by: 'ops', reason: 'x', until })).rejects.toBeInstanceOf(
      PauseEndInPastError,
    );
    expect(await ledger.getJobState('nightly')).toBeUndefined();
  });

  it('resumes by remembering the pause, whose runs the dispatcher skips as paused, leaving the watermark, and logs who resumed', async () => {
    const { deps, ledger, log, clock } = await setup();
    await ledger.createJobState('nightly', new Date('2026-11-01T01:30:00Z'));
    await pauseJob(deps, { job, by: 'alice@laptop', reason: 'db migration' });
    clock.set('2026-11-29T12:00:00.000Z');
    const result = await resumeJob(deps, { job, by: 'bob@desk', detail: 'after the migration' });
    expect(result).toMatchObject({
      resumed: true,
      at: '2026-11-29T12:00:00.000Z',
      pause: { paused: true, pausedAt: NOW, pausedBy: 'alice@laptop', reason: 'db migration' },
    });
    expect(await ledger.getJobState('nightly')).toEqual({
      jobId: 'nightly',
      watermarkAt: '2026-11-01T01:30:00.000Z',
      sinceAt: '2026-11-01T01:30:00.000Z',
      lastPauseFrom: NOW,
      lastPauseTo: '2026-11-29T12:00:00.000Z',
    });
    expect((await log.read('nightly', new Date(0), 10)).map((e) => [e.action, e.by])).toEqual([
      ['resumed', 'bob@desk'],
      ['paused', 'alice@laptop'],
    ]);
  });

  it('does nothing when resuming a job that is not paused, and refuses one jobs.yaml disables', async () => {
    const { deps, log } = await setup();
    expect(await resumeJob(deps, { job, by: 'ops' })).toMatchObject({ resumed: false });
    expect(await log.read('nightly', new Date(0), 10)).toEqual([]);
    const disabled = makeJob({ id: 'off', schedule: '30 2 * * *', enabled: false });
    await expect(resumeJob(deps, { job: disabled, by: 'ops' })).rejects.toBeInstanceOf(
      DisabledInConfigError,
    );
  });

  it("keeps operator events out of the job's own byJob partition and reads them newest first, since an instant", async () => {
    const { store, log } = await setup();
    for (const [at, action] of [
      ['2026-11-29T09:00:00.000Z', 'paused'],
      ['2026-11-29T10:00:00.000Z', 'resumed'],
      ['2026-11-29T11:00:00.000Z', 'discarded'],
    ] as const) {
      await log.record({ jobId: 'nightly', action, at, by: 'ops', runKey: 'a'.repeat(64) });
    }
    await log.record({ jobId: 'other', action: 'paused', at: NOW, by: 'ops' });
    const since = new Date('2026-11-29T09:30:00Z');
    expect((await log.read('nightly', since, 10)).map((e) => e.action)).toEqual([
      'discarded',
      'resumed',
    ]);
    const runsOfJob = await store.query({
      index: LEDGER_BY_JOB_INDEX,
      keyCondition: '#job = :job',
      names: { '#job': LEDGER_BY_JOB_PARTITION_KEY },
      values: { ':job': av.s('nightly') },
      limit: 10,
    });
    expect(runsOfJob).toEqual([]);
  });
});
