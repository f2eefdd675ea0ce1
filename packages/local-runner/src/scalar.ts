/** A JSON value API Gateway and CloudFormation take where they take one value: a string, a number or a boolean. */
export type Scalar = string | number | boolean;

export const isScalar = (value: unknown): value is Scalar => ['string', 'number', 'boolean'].includes(typeof value);
