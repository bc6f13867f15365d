import { mkdtempSync } from 'node:fs';
import { loadConfig, startServer } from '@service/server';
import { serviceEnvironment } from './dist/benchmarks/api-fixture.js';

const dir = mkdtempSync('/tmp/svcprof-');
const server = await startServer(loadConfig({ ...serviceEnvironment(dir), SERVICE_PORT: '3998' }, dir), {
  webRoot: null,
});
console.log(server.url);
setTimeout(() => server.close(), Number(process.env.T ?? 10000));
