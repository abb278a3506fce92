import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMetrics } from '../../../functions/shared/metrics.ts';

afterEach(() => vi.restoreAllMocks());

function captureStdout() {
  const lines: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  return () =>
    lines
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
}

describe('createMetrics (Powertools EMF)', () => {
  it('emits one EMF document per job with exactly the jobId dimension, counts summed', () => {
    const read = captureStdout();
    const metrics = createMetrics();
    metrics.job('daily', 'Dispatched');
    metrics.job('daily', 'Dispatched');
    metrics.job('daily', 'DispatchLagSeconds', 1.5);
    metrics.job('daily', 'DispatchLagSeconds', 3);
    metrics.job('hourly', 'MissedRuns');
    metrics.global('MalformedEvents');
    metrics.flush();
    const docs = read();
    vi.restoreAllMocks();

    expect(docs).toHaveLength(3);
    const [daily, hourly, global] = docs;
    expect(daily._aws.CloudWatchMetrics).toEqual([
      {
        Namespace: 'zonecron',
        Dimensions: [['jobId']],
        Metrics: [
          { Name: 'Dispatched', Unit: 'Count' },
          { Name: 'DispatchLagSeconds', Unit: 'Seconds' },
        ],
      },
    ]);
    expect(daily).toMatchObject({ jobId: 'daily', Dispatched: 2, DispatchLagSeconds: [1.5, 3] });
    expect(hourly).toMatchObject({ jobId: 'hourly', MissedRuns: 1 });
    expect(global._aws.CloudWatchMetrics[0].Dimensions).toEqual([[]]);
    expect(global).toMatchObject({ MalformedEvents: 1 });
    expect(global.jobId).toBeUndefined();
  });

  it('writes nothing when nothing was added, and empties its buffer on flush', () => {
    const read = captureStdout();
    const metrics = createMetrics();
    metrics.flush();
    metrics.job('a', 'Dispatched');
    metrics.flush();
    metrics.flush();
    const docs = read();
    vi.restoreAllMocks();
    expect(docs).toHaveLength(1);
  });
});
