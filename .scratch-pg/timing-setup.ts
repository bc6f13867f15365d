import { startEmbeddedPostgres } from '../test/support/embedded-postgres-server.js';
export default async function () {
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    const s = await startEmbeddedPostgres();
    const t1 = performance.now();
    await s.stop();
    const t2 = performance.now();
    process.stderr.write(`start ${(t1 - t0).toFixed(0)}ms stop ${(t2 - t1).toFixed(0)}ms\n`);
  }
}
