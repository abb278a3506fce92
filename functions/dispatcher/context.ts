/**
 * The dispatcher core's context: its deps as injected (`DispatcherDeps`), its tunables and
 * their defaults, and the resolved context every part of the core receives (`CoreContext`).
 */
import type { DeadLetters } from '#jobs/dead-letters.ts';
import { bundleIdOf, type JobDefinition } from '#jobs/job.ts';
import { catalogOf, type JobCatalog } from '#jobs/jobs-bundle.ts';
import {
  type Ledger,
  type Notifier,
  type OutboxDeps,
  type OutboxEffect,
  performOutbox,
  type RunItem,
  type Signal,
} from '#ledger/index.ts';
import { DEFAULT_LEASE_SECONDS, DEFAULT_RETENTION_DAYS } from '#shared/defaults.ts';
import type { AppLogger } from '#shared/logger.ts';
import type { AppMetrics } from '#shared/metrics.ts';
import type { ZoneDriftCheck } from '#zone-drift/zone-drift-check.ts';
import type { TargetDelivery } from './targets/index.ts';

/** The dispatcher's clock: the only place it learns the time (leases, lag, TTL). */
export type Clock = () => Date;

/** Tunables of the dispatcher core; every one has a default. */
export interface DispatcherOptions {
  /**
   * How long a claim is held before the sweep may take the run over. Above the dispatcher
   * Lambda's timeout, so a live delivery is never taken over (the stack sets timeout + 30 s).
   * @default DEFAULT_LEASE_SECONDS (300)
   */
  readonly leaseSeconds: number;
  /** Ledger retention: run items expire this long after their last claim. @default 35 */
  readonly retentionDays: number;
  /** The first sweep's window, when no sweep ran before. @default 120 */
  readonly sweepLookbackSeconds: number;
  /** Jobs the sweep catches up, and open runs it settles, in parallel. @default 8 */
  readonly sweepConcurrency: number;
  /** Most of a backlog (after an outage) one sweep checks; later sweeps go on. @default 1800 */
  readonly sweepChunkSeconds: number;
  /** Oldest backlog the sweep looks back to; older runs are the ticks' catch-up. @default 86400 */
  readonly sweepMaxBacklogSeconds: number;
  /** Open runs one sweep settles per `byOpen` partition; the rest wait a minute. @default 50 */
  readonly openRunsPerShard: number;
  /** How far in the future a tick's `scheduledTime` may be (clock skew). @default 60 */
  readonly clockSkewSeconds: number;
  /** How long the writer of an outbox has to perform it before the sweep does. @default 120 */
  readonly outboxLeaseSeconds: number;
  /** Wait before the first retry of a failed delivery; doubles each attempt. @default 60 */
  readonly retryBaseSeconds: number;
  /** Longest wait between retries. @default 900 */
  readonly retryMaxSeconds: number;
  /** Waits of the in-invocation retries of ledger writes (tests: none). @default real time */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** Default {@link DispatcherOptions}. */
export const DEFAULT_DISPATCHER_OPTIONS: DispatcherOptions = {
  leaseSeconds: DEFAULT_LEASE_SECONDS,
  retentionDays: DEFAULT_RETENTION_DAYS,
  sweepLookbackSeconds: 120,
  sweepConcurrency: 8,
  sweepChunkSeconds: 1800,
  sweepMaxBacklogSeconds: 86_400,
  openRunsPerShard: 50,
  clockSkewSeconds: 60,
  outboxLeaseSeconds: 120,
  retryBaseSeconds: 60,
  retryMaxSeconds: 900,
};

/** Everything the dispatcher core needs, injected (architecture §7). */
export interface DispatcherDeps {
  readonly clock: Clock;
  /** The configured jobs: a list, or the catalog the Lambda reads lazily from its bundle. */
  readonly jobs: readonly JobDefinition[] | JobCatalog;
  readonly ledger: Ledger;
  readonly targets: TargetDelivery;
  readonly deadLetters: DeadLetters;
  readonly notifier: Notifier;
  readonly logger: AppLogger;
  readonly metrics: AppMetrics;
  /** The stack's name: in every envelope, notification and command it prints. */
  readonly stackName: string;
  /**
   * Compares synth's zone data with this runtime's, from the sweep, once per container
   * (`createZoneDriftCheck`). Absent: no comparison.
   */
  readonly zoneDrift?: ZoneDriftCheck;
  /**
   * Makes each claim's delivery secret (architecture §6). @default `newDeliverySecret`: 128
   * random bits from the platform's CSPRNG
   */
  readonly deliverySecret?: () => string;
  readonly options?: Partial<DispatcherOptions>;
}

/** The resolved deps shared by the dispatcher's parts. */
export interface CoreContext extends Omit<DispatcherDeps, 'options' | 'jobs'> {
  readonly options: DispatcherOptions;
  readonly jobs: JobCatalog;
  /**
   * The deploy instant of this container's jobs bundle (docs/semantics.md, "The life of a
   * job"): the instant of the first event a dispatcher with this bundle handled (`eventAt`, if
   * this is the first), recorded once and read once per container.
   */
  readonly deployInstant: (eventAt: Date) => Promise<Date>;
}

/** Builds the shared context from the deps. */
export function coreContext(deps: DispatcherDeps): CoreContext {
  const jobs = catalogOf(deps.jobs);
  let instant: Promise<Date> | undefined;
  const deployInstant = (eventAt: Date) => {
    // A failed write is tried again by the next event that needs it.
    instant ??= deps.ledger.deployInstant(bundleIdOf(jobs.all()), eventAt).catch((error) => {
      instant = undefined;
      throw error;
    });
    return instant;
  };
  return {
    ...deps,
    options: { ...DEFAULT_DISPATCHER_OPTIONS, ...deps.options },
    jobs,
    deployInstant,
  };
}

/** The outbox deps from the core context. */
export function outboxDeps(ctx: CoreContext): OutboxDeps {
  return ctx.options.sleep ? { ...ctx, sleep: ctx.options.sleep } : ctx;
}

/** Performs an outbox the caller just wrote (it holds its lease). */
export function performNewOutbox(
  ctx: CoreContext,
  item: RunItem,
  changes: Partial<RunItem>,
  effects: readonly OutboxEffect[],
  signals: readonly Signal[],
): Promise<OutboxEffect[]> {
  return performOutbox(outboxDeps(ctx), {
    ...item,
    ...changes,
    outbox: effects,
    signals: [...new Set([...item.signals, ...signals])],
  });
}

/** The in-invocation retries of ledger writes, with the context's sleep. */
export function retryOptions(ctx: CoreContext) {
  return ctx.options.sleep ? { sleep: ctx.options.sleep } : {};
}
