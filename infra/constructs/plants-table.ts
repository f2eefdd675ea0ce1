import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table } from 'aws-cdk-lib/aws-dynamodb';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';

/** The plants table: `id` (N, int64 exact) as partition key, on demand, point-in-time recovery, never deleted with the stack. */
export class PlantsTable extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.table = new Table(this, 'Table', {
      partitionKey: { name: 'id', type: AttributeType.NUMBER },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      // A store must not lose its plants to `cdk destroy`.
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }

  /** What createPlant needs, and nothing more: a conditional put, and a read on conflict. */
  grantCreatePlant(grantee: IGrantable) {
    return this.table.grant(grantee, 'dynamodb:PutItem', 'dynamodb:GetItem');
  }

  /** What a read needs, and nothing more: an item by its id, and pages of the table. */
  grantReadPlants(grantee: IGrantable) {
    return this.table.grant(grantee, 'dynamodb:GetItem', 'dynamodb:Scan');
  }
}
