import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table } from 'aws-cdk-lib/aws-dynamodb';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';

/**
 * The plants table: `id` (N, int64 exact) as partition key, on demand, point-in-time recovery, never deleted with the
 * stack once it was created.
 */
export class PlantsTable extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.table = new Table(this, 'Table', {
      partitionKey: { name: 'id', type: AttributeType.NUMBER },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // A store must not lose its plants to `cdk destroy` or a replacement; but a table whose first create is rolled
      // back holds nothing, and `Retain` would leave one behind per failed attempt: RetainExceptOnCreate deletes it
      // then (https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-attribute-deletionpolicy.html).
      // That delete is why DynamoDB's own deletion protection stays off here: DeleteTable refuses a protected table,
      // and the rollback would fail instead. docs/deploy.md says how to turn it on once the stack exists.
      removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
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
