/**
 * Child process of the `api` benchmark: `api-target.js baseline` runs a bare Fastify hello-world,
 * `api-target.js service <data dir>` the real server. Reports `{ type: 'ready', url }` over IPC and
 * closes its server when the parent disconnects (or dies).
 */
import type { TargetMessage } from '../lib/child-target.js';
import { serviceEnvironment } from './api-fixture.js';

interface Closable {
  url: string;
  close(): Promise<void>;
}

async function startBaseline(): Promise<Closable> {
  const { default: Fastify } = await import('fastify');
  const app = Fastify();
  app.get('/', async () => ({ hello: 'world' }));
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { url, close: () => app.close() };
}

async function startService(dataDir: string): Promise<Closable> {
  const { loadConfig, startServer } = await import('@service/server');
  const server = await startServer(loadConfig(serviceEnvironment(dataDir), dataDir), { webRoot: null });
  return { url: server.url, close: () => server.close() };
}

function send(message: TargetMessage): void {
  process.send?.(message);
}

async function main(): Promise<void> {
  const [kind, dataDir] = process.argv.slice(2);
  let target: Closable;
  try {
    if (kind === 'baseline') target = await startBaseline();
    else if (kind === 'service' && dataDir) target = await startService(dataDir);
    else
      throw new Error(`usage: api-target.js baseline | service <data dir> (got "${process.argv.slice(2).join(' ')}")`);
  } catch (error) {
    send({ type: 'failed', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    process.disconnect?.();
    process.exitCode = 1;
    return;
  }
  process.once('disconnect', () => {
    target.close().then(
      () => {
        process.exitCode = 0;
      },
      (error: unknown) => {
        process.stderr.write(`api-target ${kind}: close failed: ${String(error)}\n`);
        process.exitCode = 1;
      },
    );
  });
  send({ type: 'ready', url: target.url });
}

await main();
