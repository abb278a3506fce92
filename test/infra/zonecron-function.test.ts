import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { ZonecronFunction } from '../../infra/constructs/zonecron-function.ts';
import { createJobsBundle } from '../../infra/packaging/jobs-bundle-file.ts';
import { makeJob } from '../support/jobs.ts';

const synthTime = new Date('2026-11-30T00:00:00Z');

function functionIn(stack: Stack, id: string, entry: string, jobIds: readonly string[]) {
  return new ZonecronFunction(stack, id, {
    entry,
    description: id,
    environment: {},
    jobsBundle: createJobsBundle(
      jobIds.map((jobId) => makeJob({ id: jobId })),
      { synthTime },
    ),
  });
}

describe('ZonecronFunction code assets', () => {
  it('stages one bundle per entry and jobs file, never reusing another function’s', () => {
    const app = new App();
    const stack = new Stack(app, 'Assets');
    functionIn(stack, 'DispatcherA', 'functions/dispatcher/handler.ts', ['a']);
    functionIn(stack, 'DispatcherB', 'functions/dispatcher/handler.ts', ['b']);
    functionIn(stack, 'Recorder', 'functions/recorder/handler.ts', ['a']);
    const out = app.synth().directory;
    const assets = readdirSync(out).filter((name) => name.startsWith('asset.'));
    const jobIdsByAsset = assets.map((asset) => {
      const bundle = JSON.parse(readFileSync(join(out, asset, 'jobs.json'), 'utf8'));
      return bundle.jobs.map((job: { id: string }) => job.id).join(',');
    });
    expect(jobIdsByAsset.sort()).toEqual(['a', 'a', 'b']);
    const handlers = assets.map((asset) => readFileSync(join(out, asset, 'index.mjs'), 'utf8'));
    expect(new Set(handlers).size).toBe(2);
  });
});
