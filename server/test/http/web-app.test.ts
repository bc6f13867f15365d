import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, startServer } from '@service/server';
import { expect, it } from 'vitest';

it('serves the web app at / with deep links falling back to index.html, API misses staying JSON', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'service-web-'));
  const webRoot = join(dataDir, 'web');
  await mkdir(join(webRoot, 'assets'), { recursive: true });
  await writeFile(join(webRoot, 'index.html'), '<!doctype html><title>Service</title><div id="root"></div>');
  await writeFile(join(webRoot, 'assets', 'app.js'), 'console.log("app")');
  const server = await startServer(
    loadConfig({ SERVICE_DATA_DIR: dataDir, SERVICE_PORT: '0', SERVICE_LOG_LEVEL: 'silent' }),
    { webRoot },
  );
  try {
    const home = await fetch(`${server.url}/`);
    expect(home.status).toBe(200);
    expect(await home.text()).toContain('<div id="root">');

    const deep = await fetch(`${server.url}/projects/123/dashboards`, { headers: { accept: 'text/html' } });
    expect(deep.status).toBe(200);
    expect(deep.headers.get('content-type')).toContain('text/html');

    const asset = await fetch(`${server.url}/assets/app.js`);
    expect(await asset.text()).toBe('console.log("app")');

    const missingAsset = await fetch(`${server.url}/assets/missing.js`);
    expect(missingAsset.status).toBe(404);

    const api = await fetch(`${server.url}/service/api/v1/nothing-here`, { headers: { accept: 'text/html' } });
    expect(api.status).toBe(404);
    expect(((await api.json()) as { code: string }).code).toBe('not_found');
  } finally {
    await server.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});
