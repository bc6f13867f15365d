import { execFile } from 'node:child_process';
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { loadConfig, startServer } from '@service/server';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterEach, describe, expect } from 'vitest';
import { handleMissingService } from './missing-service.js';
import { ADMIN, createTestDatabase, type TestServer } from './test-server.js';

/** Debian's Chromium; override with SERVICE_TEST_CHROMIUM. */
export const CHROMIUM_PATH = process.env.SERVICE_TEST_CHROMIUM ?? '/usr/bin/chromium';

const REPO_ROOT = resolve(import.meta.dirname, '../..');
const WEB_DIR = join(REPO_ROOT, 'web');
const runFile = promisify(execFile);

/** Why browser suites cannot run here, or null when they can. */
export function browserUnavailable(): string | null {
  try {
    accessSync(CHROMIUM_PATH, constants.X_OK);
  } catch {
    return `${CHROMIUM_PATH} is missing (apt-get install chromium, or set SERVICE_TEST_CHROMIUM)`;
  }
  return null;
}

/** Content-Security-Policy violations reported in watched contexts since the last test ended. */
const policyViolations: string[] = [];

/**
 * Notes every Content-Security-Policy violation that a page of `context` reports (Chromium logs
 * each as a console error); a browser suite's test fails when any was reported during it.
 */
export function watchPolicyViolations(context: BrowserContext): void {
  context.on('console', (message) => {
    if (message.type() === 'error' && message.text().includes('Content Security Policy')) {
      policyViolations.push(message.text());
    }
  });
}

let announced = false;
/**
 * A suite that needs Chromium: skipped with one loud line when it is missing (on CI its file fails
 * instead). Each of its tests fails if a watched page broke the pages' Content-Security-Policy
 * (server/src/http/page-policy.ts).
 */
export function describeBrowser(name: string, suite: () => void): void {
  const reason = browserUnavailable();
  if (reason !== null && !announced) {
    handleMissingService('browser', 'browser suites', reason);
    announced = true;
  }
  (reason === null ? describe : describe.skip)(name, () => {
    afterEach(() => {
      expect(policyViolations.splice(0), 'Content-Security-Policy violations').toEqual([]);
    });
    suite();
  });
}

/** CSS transitions still running in the page (not animations: a spinner's never ends). */
const RUNNING_TRANSITIONS = `document.getAnimations()
  .filter((animation) => animation instanceof CSSTransition && animation.playState === 'running').length`;

/** Waits until no CSS transition runs in the page (a dialog opening, a drawer sliding in). */
export async function transitionsEnded(page: Page): Promise<void> {
  await expect.poll(() => page.evaluate(RUNNING_TRANSITIONS), { timeout: 5_000, interval: 50 }).toBe(0);
}

/** axe-core, the accessibility rules engine, as the script a page evaluates. */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Runs axe-core's rules (WCAG 2.x A and AA, and its best practices) on the page as it stands and
 * fails with every violation: unlabelled controls, missing headings, text below 4.5:1 contrast
 * in the current theme, and so on. The main screens are checked where the tests show them.
 */
export async function expectAccessible(page: Page, screen: string): Promise<void> {
  // Colors are judged as shown: a drawer or dialog still fading in would read as low contrast.
  await transitionsEnded(page);
  // Through evaluate, which the pages' Content-Security-Policy does not govern; it refuses a script
  // tag. Once per document: later checks of the same page find it there.
  if (!(await page.evaluate("typeof axe !== 'undefined'"))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((result) =>
    result.violations.map((violation) => violation.id + ' (' + violation.impact + '): ' +
      violation.nodes.slice(0, 3).map((node) => node.target.join(' ') + ' ' + node.failureSummary).join(' | ')).join('\\n'))`);
  expect(violations, `accessibility of ${screen}`).toBe('');
}

/**
 * Switches the browser's colour preference and waits until the app follows it. Mantine learns of
 * the change from a media-query event a frame later; judged before, colours would still be moving
 * from one theme to the other while no transition had started yet.
 */
export async function preferColorScheme(page: Page, scheme: 'light' | 'dark'): Promise<void> {
  await page.emulateMedia({ colorScheme: scheme });
  await expect
    .poll(() => page.evaluate("document.documentElement.getAttribute('data-mantine-color-scheme')"), { timeout: 5_000 })
    .toBe(scheme);
}

/** axe-core in the light theme, then in the dark one, and back (for pages that draw no chart). */
export async function expectAccessibleInBothThemes(page: Page, screen: string): Promise<void> {
  await expectAccessible(page, `${screen}, light`);
  await preferColorScheme(page, 'dark');
  await expectAccessible(page, `${screen}, dark`);
  await preferColorScheme(page, 'light');
}

const SCREENSHOTS = join(REPO_ROOT, 'docs', 'screenshots');

/** Whether browser tests write the README's screenshots: only with SERVICE_TEST_SCREENSHOTS=1. */
export function screenshotsEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return ['1', 'true', 'yes'].includes((env.SERVICE_TEST_SCREENSHOTS ?? '').trim().toLowerCase());
}

/**
 * Saves `docs/screenshots/{name}.png` of the page, or of one part of it (a locator), when
 * screenshots are turned on; otherwise does nothing, so an ordinary test run leaves the tracked
 * images (and the working tree) untouched.
 */
export async function saveScreenshot(page: Page | Locator, name: string): Promise<void> {
  if (!screenshotsEnabled()) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
}

/** A fresh browser context (no session) with one page opened at `path` on the test server. */
/** A session as `login` answers it, to open a page already signed in. */
export interface StoredSession {
  access_token: string;
  refresh_token: string;
  user: unknown;
}

export async function openPage(
  browser: Browser,
  server: { url: string },
  path: string,
  options: { width?: number; height?: number; timeout?: number; session?: StoredSession } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const viewport = { width: options.width ?? 1280, height: options.height ?? 800 };
  const context = await browser.newContext({ viewport });
  watchPolicyViolations(context);
  if (options.session) {
    // Signed in as the web app keeps a session (web/src/auth), without going through the sign-in page.
    const { access_token, refresh_token, user } = options.session;
    const stored = JSON.stringify({ access_token, refresh_token, user });
    await context.addInitScript(`localStorage.setItem('service.session', ${JSON.stringify(stored)})`);
  }
  const page = await context.newPage();
  page.setDefaultTimeout(options.timeout ?? 15_000);
  await page.goto(`${server.url}${path}`);
  return { context, page };
}

/** Fills and sends the sign-in card's password form (the page must be on `/auth/sign-in`). */
export async function submitPasswordSignIn(page: Page, email: string, password: string): Promise<void> {
  await page.waitForURL(/\/auth\/sign-in/);
  await page.getByRole('textbox', { name: 'Email' }).fill(email);
  await page.getByLabel(/^Password/).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

export async function launchBrowser(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules' || entry === 'dist') continue;
    newest = Math.max(newest, newestMtime(join(path, entry)));
  }
  return newest;
}

let built: Promise<string> | null = null;
/**
 * The built web app: SERVICE_TEST_WEB_DIST when set, `web/dist` when it is newer than every
 * source it is built from (as after `npm run build`), otherwise a fresh build in a temporary folder.
 */
export function webAppDist(): Promise<string> {
  built ??= (async () => {
    const fromEnv = process.env.SERVICE_TEST_WEB_DIST;
    if (fromEnv) return resolve(fromEnv);
    const dist = join(WEB_DIR, 'dist');
    const index = join(dist, 'index.html');
    if (existsSync(index)) {
      const sources = Math.max(
        newestMtime(join(WEB_DIR, 'src')),
        newestMtime(join(WEB_DIR, 'index.html')),
        newestMtime(join(WEB_DIR, 'vite.config.ts')),
        newestMtime(join(REPO_ROOT, 'common', 'src')),
      );
      if (statSync(index).mtimeMs > sources) return dist;
    }
    const outDir = mkdtempSync(join(tmpdir(), 'service-web-'));
    // `npm run build`'s production build, in a process of its own: Vite builds for the NODE_ENV it
    // finds, and Vitest's is `test`, which gave React's development build, where <StrictMode> mounts
    // every component twice and each remount asked the API again (e2e-start-up.test.ts failed
    // wherever web/dist was missing or stale; CI builds web/dist first).
    const vite = join(dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin', 'vite.js');
    await runFile(process.execPath, [vite, 'build', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'error'], {
      cwd: WEB_DIR,
      env: { ...process.env, NODE_ENV: 'production' },
    });
    return outDir;
  })();
  return built;
}

/** The real server on loopback (SQLite), serving the built web app at `/`. */
export async function startWebServer(env: Record<string, string> = {}): Promise<TestServer> {
  const webRoot = await webAppDist();
  const database = await createTestDatabase('sqlite');
  const config = loadConfig({
    SERVICE_DATA_DIR: database.dataDir,
    SERVICE_DATABASE_URL: database.url,
    SERVICE_HOST: '127.0.0.1',
    SERVICE_PORT: '0',
    SERVICE_PUBLIC_URL: 'http://127.0.0.1:8058',
    SERVICE_LOG_LEVEL: 'silent',
    SERVICE_BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
    SERVICE_BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
    ...env,
  });
  const server = await startServer(config, { webRoot });
  return {
    ...server,
    database,
    async stop() {
      await server.close();
      await database.drop();
    },
  };
}
