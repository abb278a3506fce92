import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import {
  LEDGER_BY_JOB_INDEX,
  LEDGER_BY_JOB_PARTITION_KEY,
  LEDGER_BY_JOB_SORT_KEY,
  LEDGER_OPEN_INDEX,
  LEDGER_OPEN_PARTITION_KEY,
  LEDGER_OPEN_SORT_KEY,
  LEDGER_PARTITION_KEY,
  LEDGER_TTL_ATTRIBUTE,
  RECORDER_RUN_ATTRIBUTES,
  SLOT_ATTRIBUTES,
} from '#ledger/index.ts';

/**
 * The DynamoDB calls the dispatcher makes, on the table and both indexes: claims and moves
 * (`UpdateItem`), reads of one run or a watermark (`GetItem`), the sweep's batch reads
 * (`BatchGetItem`) and its queries of open runs and of a job's history (`Query`).
 */
export const DISPATCHER_LEDGER_ACTIONS = [
  'dynamodb:BatchGetItem',
  'dynamodb:GetItem',
  'dynamodb:Query',
  'dynamodb:UpdateItem',
] as const;

/** The DynamoDB calls the recorder makes, on the table only: read a run, record its end. */
export const RECORDER_LEDGER_ACTIONS = ['dynamodb:GetItem', 'dynamodb:UpdateItem'] as const;

/**
 * The run keys the recorder may touch, as `dynamodb:LeadingKeys` patterns: a run key is 64
 * hex digits. IAM's `StringLike` knows only `*` and `?`, so "hex" cannot be said; 64 `?`
 * (exactly 64 characters) with no `#` (every other item's key has one: `job#…`, `ops#…`,
 * `sweep#cursor`, `zone-drift#…`) admits run items and nothing else the table holds.
 */
export const RUN_KEY_PATTERN = '?'.repeat(64);

/** The job state items the recorder may touch: their `concurrency: forbid` slot only. */
export const JOB_STATE_KEY_PATTERN = 'job#*';

/** Properties of {@link LedgerTable}. */
export interface LedgerTableProps {
  /**
   * What happens to the table when the stack is deleted or the table is replaced.
   *
   * The ledger is the only record of which runs happened; losing it makes the next sweep
   * catch up every run in the catch-up window a second time.
   *
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * Whether DynamoDB refuses `DeleteTable` until this is switched off.
   *
   * @default true
   */
  readonly deletionProtection?: boolean;
}

/**
 * The run ledger: one DynamoDB table, keyed and indexed exactly as
 * `functions/ledger/ledger-table.ts` says (architecture §5): `byJob` for a job's history,
 * `byOpen` (sparse) for the runs the sweep still has to look at.
 *
 * On-demand, because the load is a few writes per run with long idle stretches. Items expire
 * through TTL on `ttlEpochSec`. Point-in-time recovery is on, because the table is small and
 * a restore is the only way back from a bad manual edit. Encryption uses the AWS-managed key
 * (`alias/aws/dynamodb`): key use shows up in CloudTrail, there is no key policy to keep in
 * step with the dispatcher, the recorder and the operators' CLI, and no monthly key fee. A
 * customer-managed key would add cross-account control the ledger does not need.
 */
export class LedgerTable extends Construct {
  /** The DynamoDB table. */
  readonly table: dynamodb.Table;

  constructor(scope: Construct, id: string, props: LedgerTableProps = {}) {
    super(scope, id);
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: LEDGER_PARTITION_KEY, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: LEDGER_TTL_ATTRIBUTE,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
      deletionProtection: props.deletionProtection ?? true,
    });
    this.table.addGlobalSecondaryIndex({
      indexName: LEDGER_BY_JOB_INDEX,
      partitionKey: { name: LEDGER_BY_JOB_PARTITION_KEY, type: dynamodb.AttributeType.STRING },
      sortKey: { name: LEDGER_BY_JOB_SORT_KEY, type: dynamodb.AttributeType.STRING },
      projectionType: dynamodb.ProjectionType.ALL,
    });
    this.table.addGlobalSecondaryIndex({
      indexName: LEDGER_OPEN_INDEX,
      partitionKey: { name: LEDGER_OPEN_PARTITION_KEY, type: dynamodb.AttributeType.STRING },
      sortKey: { name: LEDGER_OPEN_SORT_KEY, type: dynamodb.AttributeType.NUMBER },
      projectionType: dynamodb.ProjectionType.ALL,
    });
  }

  /** The table's name, as the functions receive it in `LEDGER_TABLE_NAME`. */
  get tableName(): string {
    return this.table.tableName;
  }

  /**
   * Lets the dispatcher make exactly its calls (`DISPATCHER_LEDGER_ACTIONS`), on the table and
   * on `byOpen`, named (no `index/*` wildcard): the sweep queries it; nothing in the dispatcher
   * reads `byJob`, the CLI's history index.
   */
  grantDispatcherCalls(grantee: iam.IGrantable): iam.Grant {
    return iam.Grant.addToPrincipal({
      grantee,
      actions: [...DISPATCHER_LEDGER_ACTIONS],
      resourceArns: [this.table.tableArn, `${this.table.tableArn}/index/${LEDGER_OPEN_INDEX}`],
    });
  }

  /**
   * Lets the recorder make exactly its calls (`RECORDER_LEDGER_ACTIONS`), on the table, and
   * only on what a completion needs: run items (`RUN_KEY_PATTERN`), their
   * `RECORDER_RUN_ATTRIBUTES`; and the `concurrency: forbid` slot of job state items
   * (`SLOT_ATTRIBUTES`, `UpdateItem` only). Reads must project those attributes, writes may
   * return none of the item (`ReturnValues` NONE, UPDATED_OLD or UPDATED_NEW), as the DynamoDB
   * developer guide prescribes for `dynamodb:Attributes` ("Using IAM policy conditions for
   * fine-grained access control", example 2: `dynamodb:Select` SPECIFIC_ATTRIBUTES and
   * `dynamodb:ReturnValues`; `dynamodb:LeadingKeys` needs `ForAllValues`). The recorder asks
   * for no `ReturnValuesOnConditionCheckFailure` and reads a refused item back with a
   * projection (`functions/ledger/completion-ledger.ts`).
   */
  grantRecorderCalls(grantee: iam.IGrantable): iam.Grant {
    const noWholeItem = {
      'dynamodb:Select': 'SPECIFIC_ATTRIBUTES',
      'dynamodb:ReturnValues': ['NONE', 'UPDATED_OLD', 'UPDATED_NEW'],
    };
    const runs = iam.Grant.addToPrincipal({
      grantee,
      actions: [...RECORDER_LEDGER_ACTIONS],
      resourceArns: [this.table.tableArn],
      conditions: {
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [RUN_KEY_PATTERN] },
        'ForAllValues:StringNotLike': { 'dynamodb:LeadingKeys': ['*#*'] },
        'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...RECORDER_RUN_ATTRIBUTES] },
        StringEqualsIfExists: noWholeItem,
      },
    });
    const slots = iam.Grant.addToPrincipal({
      grantee,
      actions: ['dynamodb:UpdateItem'],
      resourceArns: [this.table.tableArn],
      conditions: {
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [JOB_STATE_KEY_PATTERN] },
        'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...SLOT_ATTRIBUTES] },
        StringEqualsIfExists: noWholeItem,
      },
    });
    return runs.combine(slots);
  }

  /**
   * Requests DynamoDB throttled, summed per minute.
   *
   * On-demand tables throttle only past their account quota or on a hot partition.
   */
  metricThrottledRequests(props?: cloudwatch.MetricOptions): cloudwatch.IMetric {
    return this.table.metricThrottledRequestsForOperations({
      period: Duration.minutes(1),
      ...props,
    });
  }
}
