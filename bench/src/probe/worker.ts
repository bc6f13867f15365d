/**
 * `node bench/dist/probe/worker.js [--concurrency N]`: `service worker` (same settings, same
 * queue, same product job kinds) that can also run the benchmark's `queue.probe` jobs. The `jobs`
 * benchmark and the queue's fault tests start these instead of `service worker`, so the probe
 * never ships in the product. Says `Worker running` on standard error once it claims; stops on
 * SIGTERM or SIGINT, handing running jobs back.
 */
import { createContext, createWorkerPool, loadConfig } from '@service/server';
import pino from 'pino';
import { registerProbe } from './probe.js';

const flag = process.argv.indexOf('--concurrency');
const concurrency = flag === -1 ? 1 : Number(process.argv[flag + 1]);
if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) {
  process.stderr.write('probe worker: --concurrency must be an integer from 1 to 64\n');
  process.exit(2);
}
const config = loadConfig();
const context = await createContext(config);
registerProbe(context);
const pool = createWorkerPool(context, pino({ level: config.logLevel }), concurrency);
await pool.start();
process.stderr.write(
  `Worker running ${concurrency} job${concurrency === 1 ? '' : 's'} at a time (with queue.probe).\n`,
);
const stop = () => {
  pool
    .stop()
    .then(() => context.close())
    .then(
      () => {
        process.exitCode = 0;
      },
      (error: unknown) => {
        process.stderr.write(`probe worker: shutdown failed: ${String(error)}\n`);
        process.exitCode = 1;
      },
    );
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
