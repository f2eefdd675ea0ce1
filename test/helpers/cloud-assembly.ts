/** The cloud assembly test/global-setup.ts synthesized with the CDK CLI. */
export const synthesizedCloudAssembly = () => {
  const dir = process.env.PLANT_STORE_CLOUD_ASSEMBLY;
  if (!dir) throw new Error('PLANT_STORE_CLOUD_ASSEMBLY is not set: run the tests through jest (test/global-setup.ts)');
  return dir;
};
