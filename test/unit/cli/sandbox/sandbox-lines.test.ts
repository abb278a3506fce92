import { describe, expect, it } from 'vitest';
import { decodeRun } from '#ledger/index.ts';
import { buildNotification } from '#ledger/notifications.ts';
import { inSecondShell, notificationLine } from '../../../../cli/sandbox/sandbox-lines.ts';

const failed = decodeRun({
  pk: { S: `2b272b3f${'0'.repeat(56)}` },
  jobId: { S: 'nightly' },
  at: { S: '2026-12-02T09:00:00.000Z' },
  nominal: { S: '2026-12-02T09:00' },
  dst: { S: 'none' },
  status: { S: 'failed' },
  lastError: { S: 'lambda RetriesExhausted after 3 attempt(s)' },
  attempts: { N: '1' },
  signals: { SS: ['run-failed'] },
});

describe("the sandbox's notification lines", () => {
  it('name the commands of the second shell, without the --stack it does not need', () => {
    const line = notificationLine(buildNotification('run-failed', failed, 'UTC', 'Zonecron'));
    const key = `2b272b3f${'0'.repeat(56)}`;
    expect(line).toBe(
      `notification run-failed: job 'nightly' run 2b272b3 at 2026-12-02T09:00:00.000Z: nightly: the run at 2026-12-02 09:00 +00:00 UTC (UTC) ran and its target reported failure (in the second shell: zonecron history nightly --since 2026-12-02T09:00:00.000Z; zonecron dlq redrive --key ${key})`,
    );
    expect(line).not.toContain('--stack');
  });

  it('leave a command that names no stack as it is', () => {
    expect(inSecondShell('zonecron dlq list', 'Zonecron')).toBe('zonecron dlq list');
  });
});
