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
