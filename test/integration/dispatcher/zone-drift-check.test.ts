// The zone-data check in the dispatcher core, against DynamoDB Local: a jobs.json made with
// altered rules (Europe/Berlin's 2027 spring change moved a week later, as a machine with
// other zone data would have computed it) makes every container log the Berlin jobs and count
// them, and on-call hears of each job once, however many containers find it. A jobs.json made
// with this Node.js's rules makes no sound, whatever zone-data version it names.
//
// Hand-checked facts, as in test/unit/shared/zone-drift.test.ts: the moved transition is
// 2027-04-04 01:00Z against the platform's 2027-03-28 01:00Z; 02:30 every day first runs at
// another instant on 2027-03-29 (00:30Z CEST against 01:30Z CET); every 15 minutes never does.
import { afterEach, describe, expect, inject, it } from 'vitest';
import { currentPlatform } from '#jobs/jobs-bundle.ts';
import { createLedgerStore, createZoneDriftLedger, RecordingNotifier } from '#ledger/index.ts';
import type { RecordedZoneData, RuntimeZoneData } from '#zone-drift/zone-drift-check.ts';
import { zoneDataVersion } from '#zone-drift/zone-fingerprint.ts';
import { intlZoneRules } from '../../../functions/schedule/index.ts';
import { createJobsBundle } from '../../../infra/packaging/jobs-bundle-file.ts';
import { instrument } from '../../support/ddb-faults.ts';
import { RecordingTargets, TestClock } from '../../support/doubles.ts';
import { harness, sweepEvent, TEST_STACK, tickEvent } from '../../support/harness.ts';
import { createLedgerTable, localDynamoClient } from '../../support/ledger.ts';
import { DRIFT_JOBS, DRIFT_SYNTH_TIME, springMovedAWeek } from '../../support/zone-drift.ts';

const SYNTH_TIME = DRIFT_SYNTH_TIME;
const JOBS = DRIFT_JOBS;
const SYNTH_PLATFORM = { node: 'v18.20.0', icu: '74.1' };

/** A jobs.json as a synth on another machine with older zone data would have written it. */
function recordedElsewhere(zoneRules = springMovedAWeek): RecordedZoneData {
  return {
    ...createJobsBundle(JOBS, { synthTime: SYNTH_TIME, zoneRules }),
    zoneDataVersion: '2024a',
    platform: SYNTH_PLATFORM,
  };
}

const clients: ReturnType<typeof localDynamoClient>[] = [];
afterEach(() => {
  for (const c of clients.splice(0)) c.destroy();
});

/** Two dispatcher containers of one deploy, on one ledger table and one clock. */
async function twoContainers(recorded: RecordedZoneData, runtime?: RuntimeZoneData) {
  const client = localDynamoClient(inject('dynamoEndpoint'));
  clients.push(client);
  const faults = instrument(client);
  const tableName = await createLedgerTable(client, 'zone-drift');
  const clock = new TestClock('2027-01-01T00:05:10Z');
  const container = () =>
    harness({
      client,
      tableName,
      clock,
      jobs: JOBS,
      targets: new RecordingTargets(),
      notifier: new RecordingNotifier(),
      zoneData: { recorded, ...(runtime ? { runtime } : {}) },
    });
  const notices = createZoneDriftLedger(createLedgerStore({ client, tableName }));
  const noticeIds = JOBS.map((job) => ({
    synthesizedAt: recorded.synthesizedAt,
    runtimeZoneData: zoneDataVersion(),
    jobId: job.id,
  }));
  return { a: container(), b: container(), clock, notices, noticeIds, faults };
}

const runtime = currentPlatform();
const driftLine = (jobId: string, expression: string, firstRunDifferenceAt: string | null) => ({
  decision: 'zone-data-drift',
  jobId,
  timezone: 'Europe/Berlin',
  expression,
  firstDisagreementAt: '2027-03-28T01:00:00.000Z',
  kind: 'transition',
  firstRunDifferenceAt,
  runsCompared: true,
  synth: 'transition 2027-04-04T01:00Z +01:00→+02:00',
  runtime: 'transition 2027-03-28T01:00Z +01:00→+02:00',
  synthZoneData: '2024a',
  runtimeZoneData: zoneDataVersion(),
  synthNode: SYNTH_PLATFORM.node,
  runtimeNode: runtime.node,
  synthIcu: SYNTH_PLATFORM.icu,
  runtimeIcu: runtime.icu,
  synthesizedAt: '2027-01-01T00:00:00.000Z',
});
const EXPECTED_LINES = [
  driftLine('berlin-nightly', '30 2 * * *', '2027-03-29T00:30:00.000Z'),
  driftLine('berlin-quarterly', '*/15 * * * *', null),
];

describe('the zone-data check, with a jobs.json computed under other rules', () => {
  it('logs exactly the Berlin jobs in each of two containers, and on-call hears of each job once', async () => {
    const { a, b, clock } = await twoContainers(recordedElsewhere());
    await a.dispatcher.handle(sweepEvent('2027-01-01T00:05:00Z'));
    clock.advance(60_000);
    await b.dispatcher.handle(sweepEvent('2027-01-01T00:06:00Z'));

    for (const container of [a, b]) {
      const lines = container.logger.withMessage('zone-data-drift');
      expect(lines.map((line) => [line.level, line.fields])).toEqual(
        EXPECTED_LINES.map((fields) => [`warn`, fields]),
      );
      expect(container.metrics.count('ZoneDataDrift')).toBe(2);
    }
    const sent = [...a.notifier.zoneDrift, ...b.notifier.zoneDrift];
    expect(sent.map((n) => n.jobId)).toEqual(['berlin-nightly', 'berlin-quarterly']);
    expect(a.metrics.count('NotificationsSent') + b.metrics.count('NotificationsSent')).toBe(2);
  });

  it('sends each notification once when two containers sweep at the same moment', async () => {
    const { a, b } = await twoContainers(recordedElsewhere());
    await Promise.all([
      a.dispatcher.handle(sweepEvent('2027-01-01T00:05:00Z')),
      b.dispatcher.handle(sweepEvent('2027-01-01T00:05:00Z')),
    ]);
    const sent = [...a.notifier.zoneDrift, ...b.notifier.zoneDrift].map((n) => n.jobId);
    expect(sent.sort()).toEqual(['berlin-nightly', 'berlin-quarterly']);
    expect(a.logger.withMessage('zone-data-drift')).toHaveLength(2);
    expect(b.logger.withMessage('zone-data-drift')).toHaveLength(2);
  });

  it('tells on-call what drifted, where it first shows, and what to do', async () => {
    const { a } = await twoContainers(recordedElsewhere());
    await a.dispatcher.handle(sweepEvent('2027-01-01T00:05:00Z'));
    const nightly = a.notifier.zoneDrift.find((n) => n.jobId === 'berlin-nightly');
    expect(nightly).toMatchObject({
      version: 1,
      signal: 'zone-data-drift',
      stack: TEST_STACK,
      timezone: 'Europe/Berlin',
      expression: '30 2 * * *',
      synthesizedAt: '2027-01-01T00:00:00.000Z',
      synthZoneData: '2024a',
      runtimeZoneData: zoneDataVersion(),
      firstDisagreementAt: '2027-03-28T01:00:00.000Z',
      firstRunDifferenceAt: '2027-03-29T00:30:00.000Z',
      commands: {
        versions: 'npx zonecron validate   (or: node -p process.versions.tz)',
        redeploy: 'npx cdk deploy --all',
      },
    });
    expect(nightly?.todo).toBe(
      `Redeploy from a machine whose Node.js has zone data ${zoneDataVersion()} or newer, so the coverings are recomputed: check with npx zonecron validate   (or: node -p process.versions.tz), then npx cdk deploy --all.`,
    );
    expect(nightly?.summary).toContain(
      'From 2027-03-29T00:30:00.000Z on, runs the covering does not fire for are delivered late by the sweep.',
    );
    const quarterly = a.notifier.zoneDrift.find((n) => n.jobId === 'berlin-quarterly');
    expect(quarterly?.summary).toContain('Its runs are the same instants on both sides');
  });

  it('records each notice as sent in the ledger, once per deploy, runtime zone data and job', async () => {
    const { a, notices, noticeIds } = await twoContainers(recordedElsewhere());
    await a.dispatcher.handle(sweepEvent('2027-01-01T00:05:00Z'));
    const stored = [...(await notices.getNotices(noticeIds)).values()];
    expect(stored.map((n) => [n.jobId, n.timezone, n.synthZoneData, n.runtimeZoneData])).toEqual(
      expect.arrayContaining([
        ['berlin-nightly', 'Europe/Berlin', '2024a', zoneDataVersion()],
        ['berlin-quarterly', 'Europe/Berlin', '2024a', zoneDataVersion()],
      ]),
    );
    expect(stored).toHaveLength(2);
    expect(stored.every((n) => n.notifiedAt === '2027-01-01T00:05:10.000Z')).toBe(true);
    expect(stored.every((n) => n.noticeLeaseUntilEpochMs === undefined)).toBe(true);
  });

  it('computes nothing on a tick; later sweeps of a container count again but log and send nothing more', async () => {
    const { a, clock } = await twoContainers(recordedElsewhere());
    await a.dispatcher.handle(tickEvent('london-hourly', '2027-01-01T00:00:00Z'));
    expect(a.logger.withMessage('zone-data-drift')).toEqual([]);
    expect(a.metrics.count('ZoneDataDrift')).toBe(0);

    await a.dispatcher.handle(sweepEvent('2027-01-01T00:05:00Z'));
    clock.advance(60_000);
    await a.dispatcher.handle(sweepEvent('2027-01-01T00:06:00Z'));
    expect(a.logger.withMessage('zone-data-drift')).toHaveLength(2);
    expect(a.metrics.count('ZoneDataDrift')).toBe(4);
    expect(a.notifier.zoneDrift).toHaveLength(2);
  });

  it('keeps a notice whose send failed owed, and any container sends it once its lease ended', async () => {
    const { a, b, clock } = await twoContainers(recordedElsewhere());
    a.notifier.failWith = new Error('SNS is down');
    await a.dispatcher.handle(sweepEvent('2027-01-01T00:05:00Z'));
    expect(a.metrics.count('NotificationFailures')).toBe(2);
    expect(a.logger.withMessage('notification-failed').map((l) => l.fields.jobId)).toEqual([
      'berlin-nightly',
      'berlin-quarterly',
    ]);

    clock.advance(60_000); // a's claims hold for 300 s: b finds them held
    await b.dispatcher.handle(sweepEvent('2027-01-01T00:06:00Z'));
    expect(b.notifier.zoneDrift).toEqual([]);

    clock.advance(300_000);
    await b.dispatcher.handle(sweepEvent('2027-01-01T00:11:00Z'));
    a.notifier.failWith = undefined;
    clock.advance(60_000);
    await a.dispatcher.handle(sweepEvent('2027-01-01T00:12:00Z'));
    expect(b.notifier.zoneDrift.map((n) => n.jobId)).toEqual([
      'berlin-nightly',
      'berlin-quarterly',
    ]);
    expect(a.notifier.zoneDrift).toEqual([]);
  });
});

describe('the zone-data check, when something fails', () => {
  it('goes on sweeping when the ledger refuses the notices, and sends them at the next sweep', async () => {
    const { a, clock, faults } = await twoContainers(recordedElsewhere());
    faults.fail(
      (r) => r.command === 'BatchGetItemCommand' && JSON.stringify(r.input).includes('zone-drift#'),
      { times: 1 },
    );
    expect(await a.dispatcher.handle(sweepEvent('2027-01-01T00:05:00Z'))).toMatchObject({
      kind: 'sweep',
    });
    expect(a.logger.withMessage('zone-data-notice-failed').map((l) => l.fields.owed)).toEqual([2]);
    expect(a.notifier.zoneDrift).toEqual([]);
    expect(a.metrics.count('ZoneDataDrift')).toBe(2);

    clock.advance(60_000);
    await a.dispatcher.handle(sweepEvent('2027-01-01T00:06:00Z'));
    expect(a.notifier.zoneDrift.map((n) => n.jobId)).toEqual([
      'berlin-nightly',
      'berlin-quarterly',
    ]);
  });

  it('goes on sweeping when the comparison itself fails, and logs it once per container', async () => {
    const broken = {
      offsetMinutesAt(): number {
        throw new Error('ICU data missing');
      },
    };
    const { a, clock } = await twoContainers(recordedElsewhere(), { rules: broken });
    expect(await a.dispatcher.handle(sweepEvent('2027-01-01T00:05:00Z'))).toMatchObject({
      kind: 'sweep',
    });
    clock.advance(60_000);
    await a.dispatcher.handle(sweepEvent('2027-01-01T00:06:00Z'));
    expect(a.logger.withMessage('zone-data-check-failed').map((l) => l.fields.error)).toEqual([
      'Error: ICU data missing',
    ]);
    expect(a.logger.withMessage('zone-data-drift')).toEqual([]);
    expect(a.metrics.count('ZoneDataDrift')).toBe(0);
  });
});

describe('the zone-data check, with a jobs.json computed under the same rules', () => {
  it.each([
    ['this Node.js wrote it', () => createJobsBundle(JOBS, { synthTime: SYNTH_TIME })],
    ['another zone-data version wrote the same offsets', () => recordedElsewhere(intlZoneRules)],
  ])('is silent when %s: no line, no metric, no notice, no notification', async (_name, made) => {
    const recorded = made();
    const { a, b, clock, notices, noticeIds } = await twoContainers(recorded);
    await a.dispatcher.handle(sweepEvent('2027-01-01T00:05:00Z'));
    clock.advance(60_000);
    await b.dispatcher.handle(sweepEvent('2027-01-01T00:06:00Z'));
    for (const container of [a, b]) {
      expect(container.logger.entries.filter((e) => /zone|notification/.test(e.message))).toEqual(
        [],
      );
      expect(container.metrics.count('ZoneDataDrift')).toBe(0);
      expect(container.notifier.zoneDrift).toEqual([]);
    }
    expect(await notices.getNotices(noticeIds)).toEqual(new Map());
  });
});
