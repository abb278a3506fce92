/**
 * Collects the problems found in a jobs file, each located by file, line and column, and
 * throws them all at once, sorted by position.
 *
 * Every part of the loader reports through one collector: the YAML reading, zod's issues, the
 * engine's and the cross-job rules'. A problem of a field a job inherits from `defaults:` is
 * located in the defaults block and said once, not once per job.
 */
import type { Document, LineCounter } from 'yaml';
import type { z } from 'zod';
import { closestName } from '#text/message-text.ts';
import { ConfigError, type ConfigIssue, type ConfigIssueCode } from './config-error.ts';
import { hasValue } from './raw-data.ts';
import { UNKNOWN_KEYS_PREFIX } from './schema.ts';
import { positionOf, type YamlPath } from './source-positions.ts';

/**
 * Collects issues with their positions; throws them all at once.
 *
 * Built over the parsed document, so that each issue, reported by path, gets its line and
 * column where it is added.
 */
export class IssueCollector {
  private readonly issues: ConfigIssue[] = [];
  /** `field|message` of problems reported inside `defaults:`, so jobs don't repeat them. */
  private readonly defaultsProblems = new Set<string>();

  constructor(
    private readonly file: string,
    private readonly doc: Document,
    private readonly lineCounter: LineCounter,
  ) {}

  hasIssues(): boolean {
    return this.issues.length > 0;
  }

  /** How many issues were added so far: a part of the loader compares it before and after. */
  count(): number {
    return this.issues.length;
  }

  position(path: YamlPath, pointAtKey = false) {
    return positionOf(this.doc, this.lineCounter, path, pointAtKey);
  }

  add(issue: Omit<ConfigIssue, 'file'>): void {
    this.issues.push({ file: this.file, ...issue });
  }

  /** An issue about `path` (from the top of the file); `field` is derived from it. */
  addAt(path: YamlPath, issue: LocatableIssue, pointAtKey = false): void {
    this.issues.push(this.locate(path, issue, pointAtKey));
  }

  /**
   * The issue about `path`, located as {@link addAt} locates it, but not collected: for the
   * loader's warnings, which never make the file invalid.
   */
  locate(path: YamlPath, issue: LocatableIssue, pointAtKey = false): ConfigIssue {
    const { line, column } = this.position(path, pointAtKey);
    return {
      file: this.file,
      line,
      column,
      ...(issue.jobId !== undefined ? { jobId: issue.jobId } : {}),
      field: fieldName(path, issue.jobId),
      message: issue.message,
      code: issue.code,
    };
  }

  /**
   * An issue about a field of job `prefix`, located where its value came from: the job itself,
   * else the `defaults:` block, else the nearest part of the job that exists.
   */
  addJobField(
    prefix: YamlPath,
    field: YamlPath,
    jobId: string | undefined,
    problem: { message: string; code: ConfigIssueCode },
    rawJob: unknown,
    rawDefaults: unknown,
    pointAtKey = false,
  ): void {
    const { message, code } = problem;
    const inJob = [...prefix, ...field];
    const fromDefaults = !hasValue(rawJob, field) && hasValue(rawDefaults, field);
    // A problem of the defaults block itself was reported there, once.
    if (fromDefaults && this.defaultsProblems.has(`${formatPath(field)}|${message}`)) return;
    const located = fromDefaults ? ['defaults', ...field] : inJob;
    const { line, column } = this.position(located, pointAtKey);
    const suffix = fromDefaults ? ' (inherited from defaults)' : '';
    this.add({
      line,
      column,
      ...(jobId !== undefined ? { jobId } : {}),
      field: jobId !== undefined ? formatPath(field) : formatPath(inJob),
      message: `${message}${suffix}`,
      code,
    });
  }

  /** zod issues found under `prefix`; for a job, pass its id and raw data to locate them. */
  addZod(
    issues: readonly z.core.$ZodIssue[],
    prefix: YamlPath,
    jobId?: string,
    rawJob?: unknown,
    rawDefaults?: unknown,
  ): void {
    const isJob = prefix[0] === 'jobs' && prefix.length === 2;
    for (const issue of issues) {
      const path = issue.path.filter((s): s is string | number => typeof s !== 'symbol');
      const entries =
        issue.code === 'unrecognized_keys'
          ? issue.keys.map((key) => ({
              path: [...path, key],
              message: unknownKeyMessage(key, issue.message),
              code: 'unknown-field' as const,
              atKey: true,
            }))
          : [{ path, message: issue.message, code: zodIssueCode(issue), atKey: false }];
      for (const entry of entries) {
        if (isJob) {
          this.addJobField(prefix, entry.path, jobId, entry, rawJob, rawDefaults, entry.atKey);
        } else {
          if (prefix[0] === 'defaults') {
            this.defaultsProblems.add(`${formatPath(entry.path)}|${entry.message}`);
          }
          this.addAt([...prefix, ...entry.path], entry, entry.atKey);
        }
      }
    }
  }

  error(cause?: unknown): ConfigError {
    const sorted = [...this.issues].sort((a, b) => a.line - b.line || a.column - b.column);
    return new ConfigError(sorted, cause === undefined ? undefined : { cause });
  }
}

/** What an issue says before it is located in the file. */
interface LocatableIssue {
  readonly jobId?: string | undefined;
  readonly message: string;
  readonly code: ConfigIssueCode;
}

/** A value that is absent is missing; anything else zod refuses is an invalid value. */
function zodIssueCode(issue: z.core.$ZodIssue): ConfigIssueCode {
  return issue.code === 'invalid_type' && issue.input === undefined
    ? 'missing-field'
    : 'invalid-value';
}

function unknownKeyMessage(key: string, zodMessage: string): string {
  if (!zodMessage.startsWith(UNKNOWN_KEYS_PREFIX)) return `unknown field '${key}'`;
  const allowed = zodMessage.slice(UNKNOWN_KEYS_PREFIX.length).split(', ');
  return `unknown field '${key}'${suggestion(key, allowed)} (allowed: ${allowed.join(', ')})`;
}

function fieldName(path: YamlPath, jobId: string | undefined): string {
  if (jobId !== undefined && path[0] === 'jobs' && typeof path[1] === 'number') {
    return formatPath(path.slice(2));
  }
  return formatPath(path);
}

/** "did you mean 'timezone'?" for a key one or two edits away from an allowed one. */
function suggestion(key: string, allowed: string[]): string {
  const best = closestName(key, allowed, { maxDistance: 2 });
  return best === undefined ? '' : `; did you mean '${best}'?`;
}

function formatPath(path: YamlPath): string {
  let text = '';
  for (const segment of path) {
    text += typeof segment === 'number' ? `[${segment}]` : text === '' ? segment : `.${segment}`;
  }
  return text;
}
