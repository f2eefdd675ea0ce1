// `npm start` (and `npm run dev`): the entry file. It takes the process that started the runner first, so that one
// gone before the runner serves (npm killed during the startup) is seen too: npm's pid from the start script (the
// shell's $PPID, known before Node starts), or this process's parent as it first sees it when run directly. The
// runner itself is in serve.ts, imported after that.
const parent = Number(process.env.PLANT_STORE_PARENT_PID) || process.ppid;
const { serve } = await import('./serve.ts');
await serve(parent);
