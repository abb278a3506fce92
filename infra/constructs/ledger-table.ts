import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import {
  LEDGER_BY_JOB_INDEX,
  LEDGER_BY_JOB_PARTITION_KEY,
  LEDGER_BY_JOB_SORT_KEY,
  LEDGER_PARTITION_KEY,
  LEDGER_TTL_ATTRIBUTE,
} from '../../functions/shared/ledger-table.ts';
import { acknowledgeNag } from '../nag.ts';

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
 * `functions/shared/ledger-table.ts` says (architecture §5).
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
  }

  /** The table's name, as the functions receive it in `LEDGER_TABLE_NAME`. */
  get tableName(): string {
    return this.table.tableName;
  }

  /**
   * Lets a principal read and write items of the table and query its index.
   *
   * CDK grants the index part as `<table ARN>/index/*`: every index of this one table (there
   * is one, `byJob`). That single cdk-nag finding is acknowledged on the grantee, by its exact
   * id, and nothing else.
   */
  grantReadWriteData(grantee: iam.IGrantable): iam.Grant {
    const grant = this.table.grantReadWriteData(grantee);
    this.acknowledgeIndexWildcard(grantee);
    return grant;
  }

  /** Lets a principal read items of the table and query its index (the CLI's `history`). */
  grantReadData(grantee: iam.IGrantable): iam.Grant {
    const grant = this.table.grantReadData(grantee);
    this.acknowledgeIndexWildcard(grantee);
    return grant;
  }

  /** The id cdk-nag gives the `<table ARN>/index/*` resource of a grant. */
  get indexWildcardFindingId(): string {
    const logicalId = Stack.of(this).getLogicalId(
      this.table.node.defaultChild as dynamodb.CfnTable,
    );
    return `AwsSolutions-IAM5[Resource::<${logicalId}.Arn>/index/*]`;
  }

  private acknowledgeIndexWildcard(grantee: iam.IGrantable): void {
    if (!(grantee instanceof Construct)) return;
    acknowledgeNag(
      grantee,
      this.indexWildcardFindingId,
      `The wildcard is '${LEDGER_BY_JOB_INDEX}' and any future index of this one ledger table (CDK's grantReadWriteData form); queries by job need the index, and no other table is reachable.`,
    );
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
