// The names of createPlant's environment variables: read by config.ts, set by the stack (infra/plant-store-stack.ts),
// as the authorizer shares its own (functions/bearer-authorizer/variable-names.ts).
export const createPlantVariableNames = {
  tableName: 'TABLE_NAME',
  maxBodyBytes: 'MAX_BODY_BYTES',
} as const;
