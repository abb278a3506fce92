import type { JobDefinition } from '#jobs/job.ts';
import { JOBS_BUNDLE_FILE } from '#jobs/jobs-bundle.ts';
import { CliError, describeError } from '../errors.ts';
import type { OperateConnection } from './connection.ts';

/** The jobs a stack runs: the bundle its dispatcher was deployed with. */
export interface DeployedJobs {
  /** The dispatcher function it was read from (output `DispatcherFunctionName`). */
  readonly functionName: string;
  /** Every configured job, enabled or not, in file order. */
  readonly jobs: readonly JobDefinition[];
  /** The dispatcher's `RETENTION_DAYS`, when its configuration has it. */
  readonly retentionDays: number | undefined;
  /** When the bundle was synthesized (UTC ISO), or '' for an old bundle. */
  readonly synthesizedAt: string;
  /** The zonecron version synth ran (`jobs.json`), absent from an older bundle. */
  readonly zonecronVersion?: string;
}

/** The deployed jobs could not be read: no permission, no such function, a damaged package. */
export class DeployedJobsError extends CliError {
  override readonly name: string = 'DeployedJobsError';
  readonly stackName: string;
  constructor(stackName: string, reason: string, options: { cause?: unknown } = {}) {
    super(
      `cannot read the jobs deployed in stack '${stackName}': ${reason}` +
        " (the operator needs lambda:GetFunction on the stack's dispatcher function)",
      options,
    );
    this.stackName = stackName;
  }
}

/** Bytes read from the end of the package first: its central directory and end record. */
const TAIL_BYTES = 128 * 1024;

/**
 * The jobs bundle the stack's dispatcher runs with, or `undefined` when no stack is named
 * (`--table` alone) or the stack has no `DispatcherFunctionName` output.
 *
 * One `lambda:GetFunction` on the dispatcher gives its configuration and a pre-signed URL of
 * its deployment package (valid for 10 minutes); two HTTP range requests on that URL read the
 * package's central directory and then `jobs.json` alone, so a 10,000-job bundle costs its
 * compressed size and not the handler's. Nothing is published for it: the package is what
 * runs, so it cannot disagree with what runs.
 *
 * @example
 * const deployed = await readDeployedJobs(await connect({ stack: 'Zonecron' }));
 * deployed?.jobs.map((job) => job.id) //=> ['berlin-nightly-report', 'ny-billing-sync']
 */
export async function readDeployedJobs(
  connection: OperateConnection,
): Promise<DeployedJobs | undefined> {
  const stack = connection.stack;
  const functionName = stack?.outputs.get('DispatcherFunctionName');
  if (!stack || !functionName) return undefined;
  try {
    const { GetFunctionCommand } = await import('@aws-sdk/client-lambda');
    const found = await connection.clients.lambda.send(
      new GetFunctionCommand({ FunctionName: functionName }),
    );
    const location = found.Code?.Location;
    if (!location) throw new CliError(`GetFunction of '${functionName}' gave no code location`);
    const { parseJobsBundle } = await import('#jobs/jobs-bundle.ts');
    const bytes = await readPackageFile(location, JOBS_BUNDLE_FILE);
    const bundle = parseJobsBundle(bytes, `${functionName}:${JOBS_BUNDLE_FILE}`);
    const days = Number(found.Configuration?.Environment?.Variables?.RETENTION_DAYS);
    return {
      functionName,
      jobs: bundle.jobs,
      retentionDays: Number.isInteger(days) && days > 0 ? days : undefined,
      synthesizedAt: bundle.synthesizedAt,
      ...(bundle.zonecronVersion === undefined ? {} : { zonecronVersion: bundle.zonecronVersion }),
    };
  } catch (error) {
    throw new DeployedJobsError(stack.stackName, describeError(error, connection.clients), {
      cause: error,
    });
  }
}

/** One file of the zip at `url`, read with range requests (the whole body when ranges are not served). */
async function readPackageFile(url: string, name: string): Promise<Buffer> {
  const { findZipEntry, readZipEntry } = await import('../deployed/zip-entry.ts');
  const tail = await getRange(url, `bytes=-${TAIL_BYTES}`);
  const entry = findZipEntry(tail.bytes, tail.totalBytes, name);
  if (tail.bytes.length === tail.totalBytes) {
    return readZipEntry(tail.bytes.subarray(entry.startOffset, entry.endOffset), entry);
  }
  const part = await getRange(url, `bytes=${entry.startOffset}-${entry.endOffset - 1}`);
  return readZipEntry(part.bytes.subarray(0, entry.endOffset - entry.startOffset), entry);
}

/** A range of the object (206), or all of it (200): its bytes and the object's whole size. */
async function getRange(
  url: string,
  range: string,
): Promise<{ readonly bytes: Buffer; readonly totalBytes: number }> {
  const response = await fetch(url, {
    headers: { Range: range },
    signal: AbortSignal.timeout(30_000),
  });
  if (response.status !== 200 && response.status !== 206) {
    throw new CliError(`reading the deployment package gave HTTP ${response.status}`);
  }
  const bytes = Buffer.from(await response.arrayBuffer());
  if (response.status === 200) return { bytes, totalBytes: bytes.length };
  const total = /\/(\d+)$/.exec(response.headers.get('content-range') ?? '')?.[1];
  if (total === undefined) throw new CliError('the deployment package gave no Content-Range size');
  return { bytes, totalBytes: Number(total) };
}
