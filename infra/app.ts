// The CDK app: one PlantStoreStack, checked by cdk-nag's AwsSolutions rules on every synth.
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { propsFromContext } from './app-context.ts';
import { PlantStoreStack } from './plant-store-stack.ts';

const app = new App();
const { stackName, ...props } = propsFromContext(app.node);
new PlantStoreStack(app, stackName, { description: 'Plant Store API: API Gateway + Lambda + DynamoDB', ...props });
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
