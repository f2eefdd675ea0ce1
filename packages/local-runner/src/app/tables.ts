// The template's DynamoDB tables as the local database creates them (database/database.ts reads one shape, an
// AWS::DynamoDB::Table's properties): an AWS::DynamoDB::Table as it is; an AWS::DynamoDB::GlobalTable (CDK's TableV2)
// as the table of the stack's region ("AWS::DynamoDB::GlobalTable", CloudFormation template reference,
// https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-dynamodb-globaltable.html): the
// properties both types share as they are, its capacity as a provisioned table's (a fixed read capacity, else an auto
// scaling's minimum; its replica's in the stack's region), its other replicas said at start, not served.
import type { Table } from './api.ts';
import { type CfnResource, ofType, props, shown } from './cfn.ts';

type Properties = Record<string, unknown>;

const objectOf = (value: unknown): Properties =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Properties) : {};
const listOf = (value: unknown): Properties[] => (Array.isArray(value) ? value.map(objectOf) : []);

/** The properties both types take alike (KeySchema, indexes' keys, the stream, Time to Live). */
const shared = [
  'TableName',
  'AttributeDefinitions',
  'KeySchema',
  'LocalSecondaryIndexes',
  'StreamSpecification',
  'TimeToLiveSpecification',
] as const;

/** A replica's Region: the stack's where it is `{ "Ref": "AWS::Region" }` (as CDK writes the stack's own). */
const regionOf = (value: unknown, stackRegion: string) =>
  objectOf(value).Ref === 'AWS::Region' ? stackRegion : shown(value);

/** The replica of the stack's region, if the template has one. */
const replicaOf = (properties: Properties, stackRegion: string) =>
  listOf(properties.Replicas).find(({ Region }) => regionOf(Region, stackRegion) === stackRegion);

/** Capacity units: the fixed number `fixed` names, else the minimum of the auto scaling `scaled` names, else 1. */
const unitsOf = (settings: unknown, scaled: string, fixed?: string) => {
  const given = objectOf(settings);
  const units = Number((fixed && given[fixed]) ?? objectOf(given[scaled]).MinCapacity);
  return Number.isFinite(units) && units >= 1 ? units : 1;
};
/** ReadProvisionedThroughputSettings: ReadCapacityUnits, or ReadCapacityAutoScalingSettings. */
const readUnits = (settings: unknown) => unitsOf(settings, 'ReadCapacityAutoScalingSettings', 'ReadCapacityUnits');
/** WriteProvisionedThroughputSettings: WriteCapacityAutoScalingSettings alone. */
const writeUnits = (settings: unknown) => unitsOf(settings, 'WriteCapacityAutoScalingSettings');

/**
 * A global table's properties as an AWS::DynamoDB::Table's: its replica of the stack's region gives the read
 * capacities (the table's, each index's), the global table the write capacities (the table's, each index's).
 */
const tablePropertiesOf = (properties: Properties, stackRegion: string): Properties => {
  const replica = replicaOf(properties, stackRegion) ?? {};
  const provisioned = properties.BillingMode === 'PROVISIONED';
  const throughput = (read: unknown, write: unknown) =>
    provisioned
      ? { ProvisionedThroughput: { ReadCapacityUnits: readUnits(read), WriteCapacityUnits: writeUnits(write) } }
      : {};
  const replicaIndexes = listOf(replica.GlobalSecondaryIndexes);
  const indexes = listOf(properties.GlobalSecondaryIndexes).map((index) => ({
    IndexName: index.IndexName,
    KeySchema: index.KeySchema,
    Projection: index.Projection,
    ...throughput(
      replicaIndexes.find(({ IndexName }) => IndexName === index.IndexName)?.ReadProvisionedThroughputSettings ??
        replica.ReadProvisionedThroughputSettings,
      index.WriteProvisionedThroughputSettings ?? properties.WriteProvisionedThroughputSettings,
    ),
  }));
  return {
    ...Object.fromEntries(shared.flatMap((name) => (properties[name] === undefined ? [] : [[name, properties[name]]]))),
    ...(indexes.length > 0 && { GlobalSecondaryIndexes: indexes }),
    ...throughput(replica.ReadProvisionedThroughputSettings, properties.WriteProvisionedThroughputSettings),
  };
};

/** A table's name locally: its TableName, else its logical id. */
const named = (id: string, properties: Properties): Table => ({
  id,
  tableName: String(properties.TableName ?? id),
  properties,
});

/** The tables of a stack (`resources`) in `stackRegion`: its AWS::DynamoDB::Table and AWS::DynamoDB::GlobalTable. */
export const tablesOf = (resources: Record<string, CfnResource>, stackRegion: string): Table[] => [
  ...ofType(resources, 'AWS::DynamoDB::Table').map(([id, resource]) => named(id, props(resource))),
  ...ofType(resources, 'AWS::DynamoDB::GlobalTable').map(([id, resource]) =>
    named(id, tablePropertiesOf(props(resource), stackRegion)),
  ),
];

/** What a stack's global tables have that is not served locally: their replicas in other regions. */
export const globalTableNotices = (stackName: string, resources: Record<string, CfnResource>, stackRegion: string) =>
  ofType(resources, 'AWS::DynamoDB::GlobalTable').flatMap(([id, resource]) => {
    const properties = props(resource);
    const others = listOf(properties.Replicas)
      .map(({ Region }) => regionOf(Region, stackRegion))
      .filter((region) => region !== stackRegion);
    const missing = replicaOf(properties, stackRegion)
      ? []
      : [
          `${stackName}/${id}: a global table with no replica in the stack's region (${stackRegion}): served as that region's table, with the global table's own settings`,
        ];
    return [
      ...missing,
      ...(others.length === 0
        ? []
        : [
            `${stackName}/${id}: a global table's replicas in ${others.join(', ')}: not served (the runner serves its table of the stack's region, ${stackRegion}, alone)`,
          ]),
    ];
  });
