import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBrowser, launchBrowser, openPage } from '../../../test/support/browser.js';
import { startTestServer, type TestServer } from '../../../test/support/test-server.js';

describeBrowser('the API docs page', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite');
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  it('has a Content-Security-Policy without inline code or framing, and still works under it', async () => {
    const answer = await fetch(`${server.url}/service/api/v1/docs/static/index.html`);
    expect(answer.status).toBe(200);
    const policy = answer.headers.get('content-security-policy') ?? '';
    const directives = Object.fromEntries(
      policy.split(';').map((directive) => {
        const [name = '', ...values] = directive.trim().split(/\s+/);
        return [name, values];
      }),
    );
    expect(directives['default-src']).toEqual(["'self'"]);
    expect(directives['script-src']).toContain("'self'");
    expect(directives['script-src']).not.toContain("'unsafe-inline'");
    expect(directives['script-src']).not.toContain("'unsafe-eval'");
    expect(directives['object-src']).toEqual(["'none'"]);
    expect(directives['frame-ancestors']).toEqual(["'none'"]);
    expect(directives['connect-src']).toEqual(["'self'"]);

    // The page renders the API's description under that policy (a violation fails the suite).
    const browser = await launchBrowser();
    try {
      const { page } = await openPage(browser, server, '/service/api/v1/docs');
      await page.locator('.swagger-ui .info .title').getByText('Service API').waitFor();
      expect(await page.locator('.opblock-tag').count()).toBeGreaterThan(3);
    } finally {
      await browser.close();
    }
  });
});
