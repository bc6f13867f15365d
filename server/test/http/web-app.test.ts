import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { loadConfig, startServer } from '@service/server';
import { expect, it } from 'vitest';

const PAGE = '<!doctype html><title>Service</title><div id="root"></div>';

/** Runs `test` against a real server whose web root holds `files` (paths under it, contents). */
async function withWebApp(files: Record<string, string | Buffer>, test: (url: string) => Promise<void>): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'service-web-'));
  const webRoot = join(dataDir, 'web');
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(webRoot, path)), { recursive: true });
    await writeFile(join(webRoot, path), content);
  }
  const server = await startServer(
    loadConfig({ SERVICE_DATA_DIR: dataDir, SERVICE_PORT: '0', SERVICE_LOG_LEVEL: 'silent' }),
    { webRoot },
  );
  try {
    await test(server.url);
  } finally {
    await server.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

it('serves the web app at / with deep links falling back to index.html, API misses staying JSON', async () => {
  await withWebApp({ 'index.html': PAGE, 'assets/app.js': 'console.log("app")' }, async (url) => {
    const home = await fetch(`${url}/`);
    expect(home.status).toBe(200);
    expect(await home.text()).toContain('<div id="root">');

    const deep = await fetch(`${url}/projects/123/dashboards`, { headers: { accept: 'text/html' } });
    expect(deep.status).toBe(200);
    expect(deep.headers.get('content-type')).toContain('text/html');

    const asset = await fetch(`${url}/assets/app.js`);
    expect(await asset.text()).toBe('console.log("app")');

    const missingAsset = await fetch(`${url}/assets/missing.js`);
    expect(missingAsset.status).toBe(404);

    const api = await fetch(`${url}/service/api/v1/nothing-here`, { headers: { accept: 'text/html' } });
    expect(api.status).toBe(404);
    expect(((await api.json()) as { code: string }).code).toBe('not_found');
  });
});

it("sends the build's compressed copies of assets, caches hashed assets for good and revalidates pages", async () => {
  const script = `console.log(${JSON.stringify('x'.repeat(4000))})`;
  const files = {
    'index.html': PAGE,
    'assets/index-abc123.js': script,
    'assets/index-abc123.js.br': brotliCompressSync(script),
    'assets/index-abc123.js.gz': gzipSync(script),
  };
  await withWebApp(files, async (url) => {
    const assetUrl = `${url}/assets/index-abc123.js`;
    const expected = Buffer.byteLength(script);
    for (const [accepted, encoding, sent] of [
      ['br, gzip', 'br', brotliCompressSync(script).length],
      ['gzip', 'gzip', gzipSync(script).length],
      ['identity', null, expected],
    ] as const) {
      const asset = await fetch(assetUrl, { headers: { 'accept-encoding': accepted } });
      expect(asset.status).toBe(200);
      expect(asset.headers.get('content-encoding')).toBe(encoding);
      expect(Number(asset.headers.get('content-length'))).toBe(sent);
      expect(asset.headers.get('content-type')).toContain('javascript');
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(asset.headers.get('vary')).toBe('accept-encoding');
      // fetch decodes the body: the same script whichever copy was sent.
      expect(await asset.text()).toBe(script);
    }

    for (const path of ['/', '/projects/123']) {
      const page = await fetch(`${url}${path}`, { headers: { accept: 'text/html' } });
      expect(page.status).toBe(200);
      expect(page.headers.get('cache-control')).toBe('no-cache');
      const etag = page.headers.get('etag');
      expect(etag).not.toBeNull();
      await page.text();
      // As a browser revalidates (fetch would otherwise add `cache-control: no-cache`, forcing a full answer).
      const again = await fetch(`${url}${path}`, {
        headers: { accept: 'text/html', 'if-none-match': etag ?? '', 'cache-control': 'max-age=0' },
      });
      expect(again.status).toBe(304);
    }
  });
});

it('gives pages a Content-Security-Policy that admits only their own inline scripts, by hash', async () => {
  const boot = 'window.booted = true;';
  const files = {
    'index.html': `<!doctype html><script type="module" src="/assets/app.js"></script><script>${boot}</script><div id="root"></div>`,
    'assets/app.js': 'console.log("app")',
  };
  await withWebApp(files, async (url) => {
    const bootHash = `'sha256-${createHash('sha256').update(boot).digest('base64')}'`;
    for (const path of ['/', '/projects/123?dc=4']) {
      const page = await fetch(`${url}${path}`, { headers: { accept: 'text/html' } });
      expect(page.status).toBe(200);
      const policy = new Map(
        (page.headers.get('content-security-policy') ?? '').split(';').map((directive) => {
          const [name = '', ...sources] = directive.trim().split(/\s+/);
          return [name, sources] as const;
        }),
      );
      expect(policy.get('script-src')).toEqual(["'self'", bootHash]);
      expect(policy.get('default-src')).toEqual(["'self'"]);
      expect(policy.get('object-src')).toEqual(["'none'"]);
      expect(policy.get('frame-ancestors')).toEqual(["'self'"]);
      expect(policy.get('script-src')).not.toContain("'unsafe-inline'");
      expect(policy.get('script-src')).not.toContain("'unsafe-eval'");
      expect(page.headers.get('referrer-policy')).toBe('no-referrer');
      expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    }
    // Scripts and API answers are not pages.
    expect((await fetch(`${url}/assets/app.js`)).headers.get('content-security-policy')).toBeNull();
    const api = await fetch(`${url}/service/api/v1/health`);
    expect(api.headers.get('content-security-policy')).toBeNull();
  });
});
