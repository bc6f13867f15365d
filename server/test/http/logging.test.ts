import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig, startServer } from '@service/server';
import { expect, it } from 'vitest';

it('logs one JSON line per request with its request id, and never a query string or token', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'service-logs-'));
  const lines: Record<string, unknown>[] = [];
  const logStream = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split('\n').filter(Boolean))
        lines.push(JSON.parse(line) as Record<string, unknown>);
      callback();
    },
  });
  const server = await startServer(
    loadConfig({ SERVICE_DATA_DIR: dataDir, SERVICE_PORT: '0', SERVICE_LOG_LEVEL: 'info' }),
    {
      webRoot: null,
      logStream,
    },
  );
  try {
    const response = await fetch(`${server.url}/service/api/v1/auth/me?code=one-time-secret`, {
      headers: { authorization: 'Bearer secret-token-value' },
    });
    expect(response.status).toBe(401);
    const requestId = response.headers.get('x-request-id');
    const completed = lines.filter((line) => line.msg === 'request completed');
    expect(completed).toHaveLength(1);
    expect(completed[0]).toMatchObject({
      reqId: requestId,
      method: 'GET',
      path: '/service/api/v1/auth/me',
      statusCode: 401,
    });
    expect(JSON.stringify(lines)).not.toContain('one-time-secret');
    expect(JSON.stringify(lines)).not.toContain('secret-token-value');
  } finally {
    await server.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});
