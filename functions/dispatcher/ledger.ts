import {
  type AttributeValue,
  BatchGetItemCommand,
  type BatchGetItemCommandOutput,
  ConditionalCheckFailedException,
  type DynamoDBClient,
  GetItemCommand,
  QueryCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import {
  LEDGER_BY_JOB_INDEX,
  LEDGER_PARTITION_KEY,
  LEDGER_TTL_ATTRIBUTE,
  WATERMARK_KEY_PREFIX,
} from '../shared/ledger-table.ts';

/**
 * The states of a run in the ledger.
 *
 * `missed` is written by the sweep for an expected run that no tick ever claimed and that the
 * job's catch-up policy does not re-run; it makes the `MissedRuns` signal exactly-once.
 */
export type RunStatus =
  | 'claimed'
  | 'dispatched'
  | 'delivery-failed'
  | 'failed'
  | 'succeeded'
  | 'skipped-overlap'
  | 'missed';

/** One run's ledger item (architecture §5), as the dispatcher reads it. */
export interface RunRecord {
  readonly key: string;
  readonly jobId: string;
  /** UTC ISO instant with milliseconds. */
  readonly at: string;
  readonly nominal: string;
  readonly dst: string;
  readonly status: RunStatus;
  readonly attempts: number;
  readonly leaseUntilEpochMs?: number;
  readonly dispatchedAt?: string;
  readonly deliveryId?: string;
  readonly lastError?: string;
  readonly failure?: 'delivery' | 'execution';
  readonly completedAt?: string;
  readonly durationMs?: number;
  readonly manual?: boolean;
  readonly ttlEpochSec?: number;
  /** Set once by the sweep when it reported the run as stuck. */
  readonly stuckReportedAt?: string;
}

/** What a claim writes. All instants are computed by the caller from its injected clock. */
export interface ClaimRequest {
  readonly key: string;
  readonly jobId: string;
  readonly at: Date;
  readonly nominal: string;
  readonly dst: string;
  readonly manual: boolean;
  readonly maxAttempts: number;
  readonly nowEpochMs: number;
  readonly leaseUntilEpochMs: number;
  readonly ttlEpochSec: number;
}

/** The result of a claim: ours, or the stored item that refused it (a suppressed duplicate). */
export type ClaimOutcome =
  | { readonly claimed: true; readonly record: RunRecord }
  | { readonly claimed: false; readonly existing: RunRecord };

/** A run the sweep found missing and records as `missed`. */
export interface MissedRequest {
  readonly key: string;
  readonly jobId: string;
  readonly at: Date;
  readonly nominal: string;
  readonly dst: string;
  readonly detectedAt: Date;
  readonly ttlEpochSec: number;
}

/**
 * The run ledger: one item per run, one watermark per job.
 *
 * Every state change is a conditional write on the run's own item, so concurrent dispatchers
 * can race freely: exactly one wins each transition. A claim is identified by the `attempts`
 * value it wrote — the later transitions (`markDispatched`, `releaseFailed`, ...) are
 * conditional on `status = claimed AND attempts = <ours>`, so a dispatcher whose lease expired
 * and was taken over cannot overwrite its successor.
 *
 * ```
 *            claim (new key)             deliver ok
 *  (none) ─────────────────────> claimed ───────────> dispatched ──(recorder)──> succeeded | failed(execution)
 *                                 │  ▲  │
 *         lease expired, reclaim  │  │  │ deliver threw
 *        (dispatcher died) ───────┘  │  ▼
 *                                    └─ delivery-failed   (attempts < maxAttempts, claim released)
 *                                       │
 *                attempts = maxAttempts ▼
 *                              failed(delivery) + one DLQ message
 *
 *  lease:  claim@t0 ──── leaseUntilEpochMs = t0 + lease ──── now > lease: anyone may reclaim
 *  last:   claim@t0 (attempts = max) ── dispatcher dies ── now > lease: the claim is refused;
 *          takeOverAbandoned (one winner, fresh lease) → one DLQ message → failed(delivery)
 *  ttl:    every write sets ttlEpochSec = at + retention; DynamoDB deletes the item later
 * ```
 */
export interface Ledger {
  /** One conditional write: new key, expired lease, or failed attempt under `maxAttempts`. */
  claim(request: ClaimRequest): Promise<ClaimOutcome>;
  /** `claimed` → `dispatched`. False when our claim was lost meanwhile. */
  markDispatched(
    key: string,
    attempts: number,
    delivery: { dispatchedAt: Date; deliveryId: string },
  ): Promise<boolean>;
  /** `claimed` → `delivery-failed`, or → `failed` (`failure: delivery`) when `terminal`. */
  releaseFailed(
    key: string,
    attempts: number,
    failure: { lastError: string; terminal: boolean; failedAt: Date },
  ): Promise<boolean>;
  /** `claimed` → `skipped-overlap` (terminal). */
  markSkippedOverlap(key: string, attempts: number, reason: string): Promise<boolean>;
  /**
   * Takes over a `claimed` run whose lease expired on its last attempt, without counting an
   * attempt, so the caller can dead-letter it and release it as `failed`.
   *
   * The dispatcher died mid-delivery on its last attempt; without this the run would stay
   * `claimed` forever.
   */
  takeOverAbandoned(
    key: string,
    attempts: number,
    nowEpochMs: number,
    leaseUntilEpochMs: number,
  ): Promise<boolean>;
  /** Creates a `missed` item; false when any item exists already. */
  recordMissed(request: MissedRequest): Promise<boolean>;
  /** Sets `stuckReportedAt` on a still-`dispatched` run, once. */
  markStuck(key: string, reportedAt: Date): Promise<boolean>;
  /** `failed` | `delivery-failed` | `missed` | `skipped-overlap` → `delivery-failed` with attempts 0. */
  resetForRedrive(key: string): Promise<boolean>;
  getRun(key: string): Promise<RunRecord | undefined>;
  /** Batched, eventually consistent reads; absent keys are absent from the map. */
  getRuns(keys: readonly string[]): Promise<Map<string, RunRecord>>;
  getWatermark(jobId: string): Promise<Watermark | undefined>;
  /**
   * Moves the watermark forward only; false when it already was at or past `at`.
   *
   * The first advance also sets `sinceAt`, which never moves again: the sweep does not call a
   * run missed when it predates the job's first handled tick (a fresh deploy).
   */
  advanceWatermark(jobId: string, at: Date): Promise<boolean>;
  /** The newest `dispatched` run of the job with `from <= at < before`. */
  findRunning(jobId: string, from: Date, before: Date): Promise<RunRecord | undefined>;
}

/** A job's watermark: the latest run handled, and the first run ever handled. */
export interface Watermark {
  readonly at: Date;
  readonly since: Date;
}

/** How the DynamoDB ledger reaches its table. */
export interface DynamoLedgerOptions {
  readonly client: DynamoDBClient;
  readonly tableName: string;
  /**
   * Whether the store returns the refusing item with a failed condition
   * (`ReturnValuesOnConditionCheckFailure`). DynamoDB and DynamoDB Local do; dynalite ignores
   * the parameter, and then one consistent GetItem fetches the item instead.
   * @default true (falls back per call when the item is not returned)
   */
  readonly returnValuesOnConditionCheckFailure?: boolean;
}

type Item = Record<string, AttributeValue>;

const s = (value: string): AttributeValue => ({ S: value });
const n = (value: number): AttributeValue => ({ N: String(value) });

function str(item: Item, name: string): string | undefined {
  const v = item[name];
  return v && 'S' in v ? v.S : undefined;
}

function num(item: Item, name: string): number | undefined {
  const v = item[name];
  return v && 'N' in v && v.N !== undefined ? Number(v.N) : undefined;
}

/** Decodes a stored run item. */
export function decodeRun(item: Item): RunRecord {
  const optional: Record<string, unknown> = {
    leaseUntilEpochMs: num(item, 'leaseUntilEpochMs'),
    dispatchedAt: str(item, 'dispatchedAt'),
    deliveryId: str(item, 'deliveryId'),
    lastError: str(item, 'lastError'),
    failure: str(item, 'failure'),
    completedAt: str(item, 'completedAt'),
    durationMs: num(item, 'durationMs'),
    manual: item.manual && 'BOOL' in item.manual ? item.manual.BOOL : undefined,
    ttlEpochSec: num(item, LEDGER_TTL_ATTRIBUTE),
    stuckReportedAt: str(item, 'stuckReportedAt'),
  };
  for (const k of Object.keys(optional)) if (optional[k] === undefined) delete optional[k];
  return {
    key: str(item, LEDGER_PARTITION_KEY) ?? '',
    jobId: str(item, 'jobId') ?? '',
    at: str(item, 'at') ?? '',
    nominal: str(item, 'nominal') ?? '',
    dst: str(item, 'dst') ?? '',
    status: (str(item, 'status') ?? 'claimed') as RunStatus,
    attempts: num(item, 'attempts') ?? 0,
    ...optional,
  } as RunRecord;
}

function isConditionFailure(error: unknown): error is ConditionalCheckFailedException {
  return (
    error instanceof ConditionalCheckFailedException ||
    (error as { name?: string } | null)?.name === 'ConditionalCheckFailedException'
  );
}

const BATCH_GET_LIMIT = 100;
const MAX_UNPROCESSED_ROUNDS = 8;

/**
 * The ledger on a DynamoDB table shaped by `ledgerTableDefinition`.
 *
 * @example
 * const ledger = createDynamoLedger({ client: new DynamoDBClient({}), tableName: 'ledger' });
 * await ledger.claim({ key, jobId: 'daily', at, nominal, dst: 'none', manual: false,
 *   maxAttempts: 3, nowEpochMs, leaseUntilEpochMs: nowEpochMs + 300_000, ttlEpochSec });
 * //=> { claimed: true, record: { status: 'claimed', attempts: 1, ... } }
 */
export function createDynamoLedger(options: DynamoLedgerOptions): Ledger {
  const { client, tableName } = options;
  const askForOld = options.returnValuesOnConditionCheckFailure ?? true;
  const keyOf = (key: string): Item => ({ [LEDGER_PARTITION_KEY]: s(key) });

  async function getRun(key: string): Promise<RunRecord | undefined> {
    const out = await client.send(
      new GetItemCommand({ TableName: tableName, Key: keyOf(key), ConsistentRead: true }),
    );
    return out.Item ? decodeRun(out.Item) : undefined;
  }

  /** A conditional update; true when it applied. */
  async function update(
    key: string,
    expression: string,
    condition: string,
    names: Record<string, string>,
    values: Item,
  ): Promise<boolean> {
    try {
      await client.send(
        new UpdateItemCommand({
          TableName: tableName,
          Key: keyOf(key),
          UpdateExpression: expression,
          ConditionExpression: condition,
          ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
          ExpressionAttributeValues: values,
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
  /** A move out of `claimed`, allowed only to the holder of that claim (the same attempt). */
  function updateOwnClaim(
    key: string,
    attempts: number,
    expression: string,
    values: Item,
  ): Promise<boolean> {
    return update(
      key,
      expression,
      '#status = :claimed AND attempts = :attempts',
      { '#status': 'status' },
      { ...values, ':claimed': s('claimed'), ':attempts': n(attempts) },
    );
  }

  return {
    async claim(request) {
      try {
        const out = await client.send(
          new UpdateItemCommand({
            TableName: tableName,
            Key: keyOf(request.key),
            UpdateExpression:
              'SET jobId = :jobId, #at = :at, nominal = :nominal, dst = :dst, #status = :claimed, ' +
              'attempts = if_not_exists(attempts, :zero) + :one, leaseUntilEpochMs = :lease, ' +
              `manual = :manual, ${LEDGER_TTL_ATTRIBUTE} = :ttl REMOVE failure`,
            ConditionExpression:
              'attribute_not_exists(#pk) OR ' +
              '(#status = :claimed AND leaseUntilEpochMs < :now AND attempts < :max) OR ' +
              '(#status = :deliveryFailed AND attempts < :max)',
            ExpressionAttributeNames: {
              '#pk': LEDGER_PARTITION_KEY,
              '#at': 'at',
              '#status': 'status',
            },
            ExpressionAttributeValues: {
              ':jobId': s(request.jobId),
              ':at': s(request.at.toISOString()),
              ':nominal': s(request.nominal),
              ':dst': s(request.dst),
              ':claimed': s('claimed'),
              ':deliveryFailed': s('delivery-failed'),
              ':zero': n(0),
              ':one': n(1),
              ':lease': n(request.leaseUntilEpochMs),
              ':manual': { BOOL: request.manual },
              ':ttl': n(request.ttlEpochSec),
              ':now': n(request.nowEpochMs),
              ':max': n(request.maxAttempts),
            },
            ReturnValues: 'ALL_NEW',
            ...(askForOld ? { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const } : {}),
          }),
        );
        return { claimed: true, record: decodeRun(out.Attributes ?? {}) };
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        const existing = error.Item ? decodeRun(error.Item) : await getRun(request.key);
        if (!existing) {
          // The refusing item vanished between the write and the read (TTL, a test reset).
          throw new LedgerConflictError(request.key);
        }
        return { claimed: false, existing };
      }
    },

    markDispatched(key, attempts, delivery) {
      return updateOwnClaim(
        key,
        attempts,
        'SET #status = :dispatched, dispatchedAt = :dispatchedAt, deliveryId = :deliveryId',
        {
          ':dispatched': s('dispatched'),
          ':dispatchedAt': s(delivery.dispatchedAt.toISOString()),
          ':deliveryId': s(delivery.deliveryId),
        },
      );
    },

    releaseFailed(key, attempts, failure) {
      const values: Item = {
        ':next': s(failure.terminal ? 'failed' : 'delivery-failed'),
        ':lastError': s(failure.lastError),
      };
      let expression = 'SET #status = :next, lastError = :lastError REMOVE leaseUntilEpochMs';
      if (failure.terminal) {
        expression =
          'SET #status = :next, lastError = :lastError, failure = :failure, completedAt = :failedAt ' +
          'REMOVE leaseUntilEpochMs';
        values[':failure'] = s('delivery');
        values[':failedAt'] = s(failure.failedAt.toISOString());
      }
      return updateOwnClaim(key, attempts, expression, values);
    },

    markSkippedOverlap(key, attempts, reason) {
      return updateOwnClaim(
        key,
        attempts,
        'SET #status = :skipped, lastError = :reason REMOVE leaseUntilEpochMs',
        { ':skipped': s('skipped-overlap'), ':reason': s(reason) },
      );
    },

    takeOverAbandoned(key, attempts, nowEpochMs, leaseUntilEpochMs) {
      return update(
        key,
        'SET leaseUntilEpochMs = :lease',
        '#status = :claimed AND attempts = :attempts AND leaseUntilEpochMs < :now',
        { '#status': 'status' },
        {
          ':lease': n(leaseUntilEpochMs),
          ':claimed': s('claimed'),
          ':attempts': n(attempts),
          ':now': n(nowEpochMs),
        },
      );
    },

    recordMissed(request) {
      return update(
        request.key,
        'SET jobId = :jobId, #at = :at, nominal = :nominal, dst = :dst, #status = :missed, ' +
          `attempts = :zero, lastError = :reason, ${LEDGER_TTL_ATTRIBUTE} = :ttl`,
        'attribute_not_exists(#pk)',
        { '#pk': LEDGER_PARTITION_KEY, '#at': 'at', '#status': 'status' },
        {
          ':jobId': s(request.jobId),
          ':at': s(request.at.toISOString()),
          ':nominal': s(request.nominal),
          ':dst': s(request.dst),
          ':missed': s('missed'),
          ':zero': n(0),
          ':reason': s(`no tick claimed this run; sweep at ${request.detectedAt.toISOString()}`),
          ':ttl': n(request.ttlEpochSec),
        },
      );
    },

    markStuck(key, reportedAt) {
      return update(
        key,
        'SET stuckReportedAt = :reportedAt',
        '#status = :dispatched AND attribute_not_exists(stuckReportedAt)',
        { '#status': 'status' },
        { ':reportedAt': s(reportedAt.toISOString()), ':dispatched': s('dispatched') },
      );
    },

    resetForRedrive(key) {
      return update(
        key,
        'SET #status = :deliveryFailed, attempts = :zero REMOVE failure, leaseUntilEpochMs',
        '#status IN (:failed, :deliveryFailed, :missed, :skipped)',
        { '#status': 'status' },
        {
          ':deliveryFailed': s('delivery-failed'),
          ':zero': n(0),
          ':failed': s('failed'),
          ':missed': s('missed'),
          ':skipped': s('skipped-overlap'),
        },
      );
    },

    getRun,

    async getRuns(keys) {
      const found = new Map<string, RunRecord>();
      const unique = [...new Set(keys)];
      for (let i = 0; i < unique.length; i += BATCH_GET_LIMIT) {
        let request: Record<string, { Keys: Item[] }> | undefined = {
          [tableName]: { Keys: unique.slice(i, i + BATCH_GET_LIMIT).map(keyOf) },
        };
        for (let round = 0; request; round++) {
          if (round >= MAX_UNPROCESSED_ROUNDS) {
            throw new LedgerThrottledError(request[tableName]?.Keys.length ?? 0);
          }
          if (round > 0) await new Promise((r) => setTimeout(r, 20 * 2 ** round));
          const out: BatchGetItemCommandOutput = await client.send(
            new BatchGetItemCommand({ RequestItems: request }),
          );
          for (const item of out.Responses?.[tableName] ?? []) {
            const run = decodeRun(item);
            found.set(run.key, run);
          }
          const rest: Item[] | undefined = out.UnprocessedKeys?.[tableName]?.Keys;
          request = rest && rest.length > 0 ? { [tableName]: { Keys: rest } } : undefined;
        }
      }
      return found;
    },

    async getWatermark(jobId) {
      const out = await client.send(
        new GetItemCommand({
          TableName: tableName,
          Key: keyOf(WATERMARK_KEY_PREFIX + jobId),
          ConsistentRead: true,
        }),
      );
      const at = out.Item ? str(out.Item, 'watermarkAt') : undefined;
      if (!at || !out.Item) return undefined;
      return { at: new Date(at), since: new Date(str(out.Item, 'sinceAt') ?? at) };
    },

    advanceWatermark(jobId, at) {
      // ISO strings with milliseconds in UTC sort like the instants they name.
      return update(
        WATERMARK_KEY_PREFIX + jobId,
        'SET watermarkAt = :at, sinceAt = if_not_exists(sinceAt, :at)',
        'attribute_not_exists(watermarkAt) OR watermarkAt < :at',
        {},
        { ':at': s(at.toISOString()) },
      );
    },

    async findRunning(jobId, from, before) {
      const beforeIso = new Date(before.getTime() - 1).toISOString();
      const fromIso = from.toISOString();
      if (fromIso > beforeIso) return undefined;
      let startKey: Item | undefined;
      do {
        const out = await client.send(
          new QueryCommand({
            TableName: tableName,
            IndexName: LEDGER_BY_JOB_INDEX,
            KeyConditionExpression: 'jobId = :jobId AND #at BETWEEN :from AND :before',
            FilterExpression: '#status = :dispatched',
            ExpressionAttributeNames: { '#at': 'at', '#status': 'status' },
            ExpressionAttributeValues: {
              ':jobId': s(jobId),
              ':from': s(fromIso),
              ':before': s(beforeIso),
              ':dispatched': s('dispatched'),
            },
            ScanIndexForward: false,
            ExclusiveStartKey: startKey,
          }),
        );
        const first = out.Items?.[0];
        if (first) return decodeRun(first);
        startKey = out.LastEvaluatedKey;
      } while (startKey);
      return undefined;
    },
  };
}

/** A claim was refused but the refusing item could not be read back. */
export class LedgerConflictError extends Error {
  readonly key: string;
  constructor(key: string) {
    super(`claim of run '${key}' was refused but no item exists (retry the tick)`);
    this.name = new.target.name;
    this.key = key;
  }
}

/** BatchGetItem kept returning UnprocessedKeys. */
export class LedgerThrottledError extends Error {
  readonly unprocessedKeys: number;
  constructor(unprocessedKeys: number) {
    super(`ledger batch read left ${unprocessedKeys} key(s) unprocessed after retries`);
    this.name = new.target.name;
    this.unprocessedKeys = unprocessedKeys;
  }
}
