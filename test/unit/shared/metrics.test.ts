import { afterEach, describe, expect, it, vi } from 'vitest';
import { jobCatalog } from '#jobs/jobs-bundle.ts';
import { createMetrics } from '#shared/metrics.ts';
import { makeJob } from '../../support/jobs.ts';

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
  it('emits the stack-wide copy of every metric, and a dedicated job its own too, counts summed', () => {
    const read = captureStdout();
    const jobs = jobCatalog([
      makeJob({ id: 'daily' }),
      makeJob({ id: 'hourly', alarm: { graceSeconds: 300, dedicated: true } }),
    ]);
    const metrics = createMetrics({ stackName: 'Prod', jobs });
    metrics.job('daily', 'Dispatched');
    metrics.job('daily', 'Dispatched');
    metrics.job('daily', 'DispatchLagSeconds', 1.5);
    metrics.job('daily', 'DispatchLagSeconds', 3);
    metrics.job('hourly', 'MissedRuns');
    metrics.global('MalformedEvents');
    metrics.flush();
    const docs = read();
    vi.restoreAllMocks();

    expect(docs).toHaveLength(2);
    const [stack, hourly] = docs;
    expect(stack._aws.CloudWatchMetrics).toEqual([
      {
        Namespace: 'zonecron',
        Dimensions: [['Stack']],
        Metrics: [
          { Name: 'Dispatched', Unit: 'Count' },
          { Name: 'DispatchLagSeconds', Unit: 'Seconds' },
          { Name: 'MissedRuns', Unit: 'Count' },
          { Name: 'MalformedEvents', Unit: 'Count' },
        ],
      },
    ]);
    expect(stack).toMatchObject({
      Stack: 'Prod',
      Dispatched: 2,
      DispatchLagSeconds: [1.5, 3],
      MissedRuns: 1,
      MalformedEvents: 1,
    });
    expect(stack.JobId).toBeUndefined();
    expect(hourly._aws.CloudWatchMetrics[0].Dimensions).toEqual([['Stack', 'JobId']]);
    expect(hourly).toMatchObject({ Stack: 'Prod', JobId: 'hourly', MissedRuns: 1 });
    expect(hourly.Dispatched).toBeUndefined();
  });

  it('writes nothing when nothing was added, and empties its buffer on flush', () => {
    const read = captureStdout();
    const metrics = createMetrics({ stackName: 'Prod' });
    metrics.flush();
    metrics.job('a', 'Dispatched');
    metrics.flush();
    metrics.flush();
    const docs = read();
    vi.restoreAllMocks();
    expect(docs).toHaveLength(1);
  });
});
