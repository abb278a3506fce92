import { describe, expect, it } from 'vitest';
import { decodeRun } from '#ledger/index.ts';
import { buildNotification, notificationSubject } from '#ledger/notifications.ts';

// The second run in a row a forbid job skipped: what its one overlap notification says.
const skipped = decodeRun({
  pk: { S: '9f86d081' },
  jobId: { S: 'hourly-report' },
  at: { S: '2026-06-01T12:00:00.000Z' },
  nominal: { S: '2026-06-01T14:00' },
  dst: { S: 'none' },
  status: { S: 'skipped' },
  skipReason: { S: 'overlap' },
  lastError: { S: 'previous run 0a1b2c3d is still running' },
  attempts: { N: '1' },
  overlapSince: { S: '2026-06-01T11:00:00.000Z' },
  signals: { SS: ['overlap'] },
});

describe('the overlap notification', () => {
  it('names the job, the first and the second skipped run, and the run that holds the slot', () => {
    const n = buildNotification('overlap', skipped, 'Europe/Berlin', 'Zonecron');
    expect(n).toMatchObject({
      signal: 'overlap',
      jobId: 'hourly-report',
      at: '2026-06-01T12:00:00.000Z',
      status: 'skipped',
      skipReason: 'overlap',
      overlapSince: '2026-06-01T11:00:00.000Z',
      commands: {
        history: 'zonecron history hourly-report --stack Zonecron --since 2026-06-01T11:00:00.000Z',
      },
    });
    expect(n.summary).toBe(
      "hourly-report: the run at 2026-06-01 14:00 +02:00 CEST (Europe/Berlin) was skipped: a previous run still holds the job's concurrency: forbid slot; the second run in a row skipped for overlap since 2026-06-01 13:00 +02:00 CEST (Europe/Berlin) (previous run 0a1b2c3d is still running); the incident's later skips are not notified",
    );
    expect(notificationSubject(n)).toBe(
      '[Zonecron] overlap: hourly-report at 2026-06-01 14:00 +02:00 CEST',
    );
  });

  it('carries no overlapSince for another signal of the same run', () => {
    expect(buildNotification('missed', skipped, 'Europe/Berlin', 'Zonecron')).not.toHaveProperty(
      'overlapSince',
    );
  });
});

// A 01:30 run of the fall-back night whose 07:00 deadline passed while it was dead-lettered.
const pastDeadline = decodeRun({
  pk: { S: '4e07408562' },
  jobId: { S: 'nightly-export' },
  at: { S: '2026-10-24T23:30:00.000Z' },
  nominal: { S: '2026-10-25T01:30' },
  dst: { S: 'none' },
  status: { S: 'failed' },
  failure: { S: 'delivery' },
  attempts: { N: '3' },
  deadlineAtEpochMs: { N: String(Date.parse('2026-10-25T06:00:00Z')) },
  signals: { SS: ['dead-lettered', 'deadline-missed'] },
});

describe('the deadline-missed notification', () => {
  it('names the job, the run and its deadline in local time with offset and in UTC, and what the run came to', () => {
    const n = buildNotification('deadline-missed', pastDeadline, 'Europe/Berlin', 'Zonecron');
    expect(n).toMatchObject({
      signal: 'deadline-missed',
      jobId: 'nightly-export',
      at: '2026-10-24T23:30:00.000Z',
      local: '2026-10-25 01:30 +02:00 CEST (Europe/Berlin)',
      deadlineAt: '2026-10-25T06:00:00.000Z',
      deadlineLocal: '2026-10-25 07:00 +01:00 CET (Europe/Berlin)',
      status: 'failed',
      runs: 1,
      commands: { act: 'zonecron dlq redrive --key 4e07408562 --stack Zonecron' },
    });
    expect(n.summary).toBe(
      'nightly-export: the run at 2026-10-25 01:30 +02:00 CEST (Europe/Berlin) (2026-10-24T23:30:00.000Z) was not done by its deadline 2026-10-25 07:00 +01:00 CET (Europe/Berlin) (2026-10-25T06:00:00.000Z); it failed',
    );
    expect(notificationSubject(n)).toBe(
      '[Zonecron] deadline-missed: nightly-export at 2026-10-25 01:30 +02:00 CEST',
    );
  });

  it('carries no deadline for another signal of the same run', () => {
    const n = buildNotification('dead-lettered', pastDeadline, 'Europe/Berlin', 'Zonecron');
    expect(n).not.toHaveProperty('deadlineAt');
    expect(n).not.toHaveProperty('deadlineLocal');
  });
});
