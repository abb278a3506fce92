import type { RunItem, SkipRange, SkipReason } from '#ledger/index.ts';
import type { Occurrence, SkippedRun } from '../../functions/schedule/index.ts';

/** A job's last scheduled run as `list` shows it. */
export interface LastRun {
  /** UTC ISO instant. */
  readonly at: string;
  readonly nominal: string;
  /** The run's key (`periodBucket(jobId, at)`). */
  readonly key: string;
  /** The ledger's item; undefined when the ledger has none for the run. */
  readonly run: RunItem | undefined;
}

/** The skip ranges read for one job, newest first, and whether more were left unread. */
export interface SkipRangesRead {
  readonly ranges: readonly SkipRange[];
  /** True when `limit` stopped the query: there may be older ranges. */
  readonly truncated: boolean;
}

/**
 * What the ledger says of one run of a job: its own item; else, for a run its calendar
 * removed, the calendar's decision, computed from the job's definition (the dispatcher writes
 * no item for it); else the gap's skip range that covers it (skipped, for the reason the range
 * gives its place); else nothing, for a run the schedule has but no dispatcher decided yet, or
 * whose record outlived `retention.days`.
 */
export type RunFate =
  | {
      readonly source: 'calendar';
      readonly jobId: string;
      readonly at: Date;
      /** The run as the engine's `scheduleBetween` removed it: reason `calendar` and its detail. */
      readonly skipped: SkippedRun;
      /** The calendar's name. */
      readonly calendar: string;
      /** The definition it was computed from: the stack's jobs bundle, or the jobs file. */
      readonly definition: 'deployed' | 'file';
    }
  | { readonly source: 'item'; readonly jobId: string; readonly at: Date; readonly run: RunItem }
  | {
      readonly source: 'range';
      readonly jobId: string;
      readonly at: Date;
      readonly occurrence: Occurrence;
      readonly range: SkipRange;
      readonly reason: SkipReason;
    }
  | {
      readonly source: 'none';
      readonly jobId: string;
      readonly at: Date;
      readonly occurrence: Occurrence;
      readonly retentionDays: number;
    };
