// The mark of one jest run, in the environment of every process the run starts (see test/global-teardown.ts).
const name = 'PLANT_STORE_TEST_RUN';

/** Puts a new mark in this process's environment: processes started from now on inherit it. */
export const markTestRun = (id: string) => {
  process.env[name] = id;
};

/** The mark as it stands in /proc/<pid>/environ, or undefined outside a marked run. */
export const testRunMark = () => (process.env[name] === undefined ? undefined : `${name}=${process.env[name]}`);
