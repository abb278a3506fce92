/**
 * What the loader returns: a jobs file validated, with every default applied.
 *
 * In a file of its own so that the loader's parts (the cross-job rules read `completion`) and
 * its callers share one definition; `load-jobs.ts` exports it.
 */
import type { JobDefinition } from '#jobs/job.ts';
import type { ConfigIssue } from './config-error.ts';

/** What `jobs.yaml` describes, validated, with every default applied. */
export interface JobsConfig {
  /** The file it came from, as given. */
  readonly file: string;
  readonly jobs: JobDefinition[];
  /**
   * What is valid but likely a mistake, located like errors (code `past`: an `until:` that has
   * passed, an `at:` in the past); empty unless the loader was given a reference instant.
   */
  readonly warnings: readonly ConfigIssue[];
  /** Subscribers of the on-call SNS topic (`alarms.email`); may be empty. */
  readonly alarmEmails: string[];
  /** Days the ledger keeps a run (`retention.days`). */
  readonly retentionDays: number;
  /**
   * An existing on-call topic (`alarms.topicArn`): the stack then creates no topic and no key.
   *
   * @default - the stack creates its own encrypted topic
   */
  readonly alarmTopicArn?: string;
  /** How completion of `lambda` targets is wired (`completion:`). */
  readonly completion: CompletionConfig;
  /**
   * The account and region the stack must be deployed to (`environment:`).
   *
   * @default - what the `lambda` and `stepfunctions` targets agree on
   */
  readonly environment?: { readonly account: string; readonly region: string };
}

/** `completion:` of jobs.yaml, defaults applied. */
export interface CompletionConfig {
  /**
   * `create`: the stack creates the asynchronous invoke config (destinations) of every `lambda`
   * target function and qualifier; `existing`: it creates none, they are managed elsewhere.
   */
  readonly lambdaInvokeConfig: 'create' | 'existing';
  /**
   * With `create`: functions (`functionArn:qualifier`, `$LATEST` when unqualified) whose invoke
   * config another stack or team manages, so this stack creates none for them.
   */
  readonly existingInvokeConfigs: readonly string[];
}
