/**
 * `gallery`: an image gallery over 10,000 images (`BENCH_GALLERY_IMAGES` for another count) in
 * headless Chromium against the real server on loopback, the web app built (`npm run build`):
 *
 * 1. **first thumbnail**: from navigation start to the first thumbnail of the gallery painted (the
 *    frame after its `load`), and to the whole first page (24) painted, each in a fresh browser
 *    context (empty cache); target < 500 ms for the first. After a warm-up load (the version's
 *    first read, printed), once the server has built the version's native copy (a version of more
 *    than 256 files gets one; the dashboard benchmark waits for it the same way). Baseline, taking turns with it: a static
 *    page of the same 24 thumbnails (WebP files copied beside the web app, served by the same
 *    server), no script, to its first and last image painted.
 * 2. **paging**: a click on the next page to its 24 thumbnails painted, five pages on.
 * 3. **requests**: every image request of those page loads, scrolling the gallery and the page to
 *    the bottom and paging; target: no full image fetched (`size=full`), thumbnails only.
 *
 * The images are small generated PNGs (`sharp`, 96 × 72, ten groups of colours) in a folder the
 * server scans (a workflow's data location, `POST /projects/{id}/ingest`): their thumbnails are
 * made on ingestion, which is printed but part of no figure.
 */
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { startWorker } from '../lib/child-worker.js';
import { wholeFromEnv } from '../lib/env.js';
import { endedChildrenCpuSeconds } from '../lib/machine.js';
import { CpuSpan, printMachine, printVerdicts } from '../lib/report.js';
import { median } from '../lib/stats.js';
import { formatTable } from '../lib/table.js';
import { UsageError } from '../lib/usage-error.js';
import { BENCH_ADMIN_EMAIL, BENCH_ADMIN_PASSWORD } from './api-fixture.js';
import { field } from './collection-fixture.js';
import { CHROMIUM, launchChromium } from './dashboard-browser.js';
import type { DashboardTargetMessage } from './dashboard-target.js';
import { type Load, loadOnce, PAGE_SIZE, PAGES_ON, type Steps, scrollAndPage } from './gallery-browser.js';
import { closeConnections, requestJson } from './ingest-http.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const TARGET_SCRIPT = join(HERE, 'dashboard-target.js');
const WEB_DIST = resolve(HERE, '../../../web/dist');
const API_PREFIX = '/service/api/v1';
const DEFAULT_IMAGES = 10_000;
const DEFAULT_RUNS = 5;
const GROUPS = 10;
const TARGET_FIRST_THUMBNAIL_MS = 500;
const BASELINE_PAGE = 'bench-gallery.html';

type Out = (line?: string) => void;
const fixed = (value: number, digits = 0) => value.toFixed(digits);
const grouped = (value: number) => value.toLocaleString('en-US').replaceAll(',', ' ');

/** Ten groups of colours, each image a slightly different shade: small, distinct PNGs. */
async function writeImages(folder: string, count: number): Promise<number> {
  await mkdir(folder, { recursive: true });
  let bytes = 0;
  const one = async (index: number) => {
    const group = index % GROUPS;
    const shade = (index * 37) % 200;
    const png = await sharp({
      create: { width: 96, height: 72, channels: 3, background: { r: 30 + shade / 2, g: group * 22, b: 255 - shade } },
    })
      .png()
      .toBuffer();
    bytes += png.length;
    await writeFile(join(folder, `G${String(group).padStart(2, '0')}_${String(index).padStart(5, '0')}.png`), png);
  };
  for (let start = 0; start < count; start += 64) {
    await Promise.all(Array.from({ length: Math.min(64, count - start) }, (_, at) => one(start + at)));
  }
  return bytes;
}

const projectYaml = (folder: string) => `
name: gallery-bench
workflows:
  - name: imaging
    data_location: { structure: flat, locations: [${JSON.stringify(folder)}] }
    data_collections:
      - tag: images
        type: image
        pattern: "(?P<group>G\\\\d+)_\\\\d+\\\\.png"
        format: csv # required by the schema, not read for images
`;

interface Setup {
  api: string;
  token: string;
  session: string;
  dashboardId: string;
  ingestSeconds: number;
}

/** Imports the project, ingests the folder and makes the gallery's dashboard. */
async function setUp(out: Out, url: string, folder: string, images: number): Promise<Setup> {
  const api = `${url}${API_PREFIX}`;
  const login = (await requestJson('POST', `${api}/auth/login`, {
    body: { email: BENCH_ADMIN_EMAIL, password: BENCH_ADMIN_PASSWORD },
  })) as Record<string, unknown>;
  const token = field<string>(login, 'access_token', 'POST /auth/login');
  const imported = await requestJson('POST', `${api}/projects/import`, { token, body: { yaml: projectYaml(folder) } });
  const projectId = field<string>(imported, 'project_id', 'POST /projects/import');
  out(`ingesting ${grouped(images)} images (reading each, making its thumbnail) ...`);
  const started = performance.now();
  await requestJson('POST', `${api}/projects/${projectId}/ingest`, { token, body: {} });
  const ingestSeconds = (performance.now() - started) / 1000;
  const workflows = field<{ workflow_id: string }[]>(
    await requestJson('GET', `${api}/projects/${projectId}/workflows`, { token }),
    'items',
    'GET /projects/{id}/workflows',
  );
  const listed = field<{ data_collection_id: string }[]>(
    await requestJson('GET', `${api}/workflows/${workflows[0]?.workflow_id}/datacollections`, { token }),
    'items',
    'GET /workflows/{id}/datacollections',
  );
  const collectionId = listed[0]?.data_collection_id ?? '';
  const preview = await requestJson('GET', `${api}/datacollections/${collectionId}/preview?limit=1`, { token });
  const total = field<number>(preview, 'total', 'GET /datacollections/{id}/preview');
  if (total !== images) throw new Error(`the image collection holds ${total} images, not ${images}`);
  const dashboard = await requestJson('POST', `${api}/dashboards`, {
    token,
    body: {
      project_id: projectId,
      title: 'Gallery bench',
      components: [
        {
          component_id: 'group',
          type: 'interactive',
          data_collection_id: collectionId,
          widget: 'select',
          column: 'group',
        },
        {
          component_id: 'gallery',
          type: 'image',
          title: 'Gallery',
          data_collection_id: collectionId,
          caption_columns: ['group'],
          page_size: PAGE_SIZE,
        },
      ],
      layout: [
        { component_id: 'group', x: 0, y: 0, w: 4, h: 2 },
        { component_id: 'gallery', x: 0, y: 2, w: 12, h: 10 },
      ],
    },
  });
  const dashboardId = field<string>(dashboard, 'dashboard_id', 'POST /dashboards');
  const session = JSON.stringify({ access_token: token, refresh_token: login.refresh_token, user: login.user });
  return { api, token, session, dashboardId, ingestSeconds };
}

/**
 * Empty files where the baseline page and its thumbnails go, written before the server starts: it
 * serves the files its web root holds at start-up (`wildcard: false`), and a path it did not see
 * then answers with the web app, which shows the sign-in page. `writeBaseline` fills them.
 */
async function reserveBaseline(webRoot: string): Promise<void> {
  await mkdir(join(webRoot, 'bench-gallery'), { recursive: true });
  await writeFile(join(webRoot, BASELINE_PAGE), '');
  for (let index = 0; index < PAGE_SIZE; index++) {
    await writeFile(join(webRoot, 'bench-gallery', `${index}.webp`), '');
  }
}

/** The gallery's first page of thumbnails as static files beside the web app, and a page of them. */
async function writeBaseline(setup: Setup, webRoot: string): Promise<void> {
  const data = await requestJson('POST', `${setup.api}/dashboards/${setup.dashboardId}/data`, {
    token: setup.token,
    body: { components: ['gallery'] },
  });
  const components = field<Record<string, { rows?: { image_id: string }[] }>>(data, 'components', 'POST /data');
  const ids = (components.gallery?.rows ?? []).map((row) => row.image_id);
  if (ids.length !== PAGE_SIZE) throw new Error(`the gallery's first page has ${ids.length} images`);
  await mkdir(join(webRoot, 'bench-gallery'), { recursive: true });
  for (const [index, id] of ids.entries()) {
    const url = `${setup.api}/dashboards/${setup.dashboardId}/components/gallery/images/${id}?size=thumbnail`;
    const response = await fetch(url, { headers: { authorization: `Bearer ${setup.token}` } });
    if (!response.ok) throw new Error(`thumbnail ${id}: HTTP ${response.status}`);
    await writeFile(join(webRoot, 'bench-gallery', `${index}.webp`), Buffer.from(await response.arrayBuffer()));
  }
  const tiles = ids.map(
    (_, index) => `<li><img data-image-size="thumbnail" src="/bench-gallery/${index}.webp" alt="${index}"></li>`,
  );
  await writeFile(
    join(webRoot, BASELINE_PAGE),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Gallery baseline</title></head>
<body><ul style="display: grid; grid-template-columns: repeat(auto-fill, minmax(140px, 1fr)); list-style: none">
${tiles.join('\n')}</ul></body></html>\n`,
  );
}

export async function run(args: string[]): Promise<void> {
  if (args.length > 0) throw new UsageError(`takes no arguments (got "${args.join(' ')}")`);
  const images = wholeFromEnv('BENCH_GALLERY_IMAGES', DEFAULT_IMAGES, PAGE_SIZE * (PAGES_ON + 1));
  const runs = wholeFromEnv('BENCH_GALLERY_RUNS', DEFAULT_RUNS, 1);
  const out: Out = (line = '') => process.stdout.write(`${line}\n`);
  out(`gallery benchmark, ${new Date().toISOString()}`);
  out(`images: ${grouped(images)}${images === DEFAULT_IMAGES ? '' : ' (BENCH_GALLERY_IMAGES)'}; ${runs} runs each`);
  out(`browser: ${CHROMIUM} (headless), a fresh context (empty cache) for every page load`);
  await printMachine(out);
  out();
  const workDir = await mkdtemp(join(tmpdir(), 'service-bench-gallery-'));
  try {
    const webRoot = join(workDir, 'web');
    await cp(WEB_DIST, webRoot, { recursive: true }).catch(() => {
      throw new UsageError(`${WEB_DIST} is missing: run \`npm run build\` first`);
    });
    await reserveBaseline(webRoot);
    const dataDir = join(workDir, 'service');
    // Inside the server's default allowed root, `<data dir>/imports`.
    const folder = join(dataDir, 'imports', 'gallery');
    const started = performance.now();
    const bytes = await writeImages(folder, images);
    out(
      `generated ${grouped(images)} PNGs (${fixed(bytes / 1024 ** 2, 1)} MiB) in ${fixed((performance.now() - started) / 1000, 1)} s`,
    );
    await measure(out, { workDir, dataDir, webRoot, folder, images, runs });
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

async function measure(
  out: Out,
  options: { workDir: string; dataDir: string; webRoot: string; folder: string; images: number; runs: number },
): Promise<void> {
  const childCpuBefore = endedChildrenCpuSeconds() ?? 0;
  const server = await startWorker<DashboardTargetMessage>(TARGET_SCRIPT, [
    'service',
    options.dataDir,
    String(1024 ** 2),
    options.webRoot,
  ]);
  const browser = await launchChromium();
  try {
    const setup = await setUp(out, server.url, options.folder, options.images);
    out(
      `  ingested in ${fixed(setup.ingestSeconds, 1)} s (${fixed((setup.ingestSeconds * 1000) / options.images, 1)} ms an image)`,
    );
    await writeBaseline(setup, options.webRoot);
    closeConnections();
    out();
    const span = new CpuSpan();
    const app = `${server.url}/dashboards/${setup.dashboardId}`;
    const baseline = `${server.url}/${BASELINE_PAGE}`;
    const requests: string[] = [];
    // A warm-up of each, left out of the medians. The gallery's is the version's first read: with
    // more than 256 files (one per image) it has the server build the version's native copy, in
    // the background, as the dashboard benchmark's first request does; the runs wait for it.
    const firstRead = await loadOnce(browser, app, setup.session, []);
    await loadOnce(browser, baseline, null, []);
    const settling = performance.now();
    const settled = await server.ask({ type: 'settle' });
    if (settled.type !== 'settled') throw new Error(`server: unexpected ${settled.type}`);
    out(
      `the version's first read (warm-up): first thumbnail painted in ${fixed(firstRead.first)} ms; ` +
        `its native copy built ${fixed((performance.now() - settling) / 1000, 1)} s later (${settled.copies} copies)`,
    );
    const appLoads: Load[] = [];
    const baseLoads: Load[] = [];
    for (let at = 0; at < options.runs; at++) {
      appLoads.push(await loadOnce(browser, app, setup.session, requests, at === 0));
      baseLoads.push(await loadOnce(browser, baseline, null, []));
    }
    const paging = await scrollAndPage(browser, app, setup.session, requests);
    span.end();
    report(out, { appLoads, baseLoads, paging, requests, runs: options.runs });
    span.print(out, (endedChildrenCpuSeconds() ?? 0) - childCpuBefore, cpus().length);
    const full = requests.filter((url) => url.includes('size=full')).length;
    const first = median(appLoads.map((load) => load.first));
    printVerdicts(out, [
      [
        first < TARGET_FIRST_THUMBNAIL_MS,
        `first thumbnail painted in ${fixed(first)} ms (target < ${TARGET_FIRST_THUMBNAIL_MS} ms)`,
      ],
      [full === 0, `${full} full images fetched while loading, scrolling and paging (target 0)`],
    ]);
  } finally {
    await browser.close();
    await server.stop();
  }
}

function report(
  out: Out,
  figures: { appLoads: Load[]; baseLoads: Load[]; paging: number[]; requests: string[]; runs: number },
): void {
  const { appLoads, baseLoads, paging, requests } = figures;
  const row = (name: string, app: number, base: number) => [name, fixed(app), fixed(base), `${fixed(app / base, 1)}×`];
  out(
    formatTable(
      ['median of runs (ms)', 'gallery', 'static page', 'ratio'],
      [
        row(
          'first thumbnail painted',
          median(appLoads.map((load) => load.first)),
          median(baseLoads.map((load) => load.first)),
        ),
        row(
          `all ${PAGE_SIZE} painted`,
          median(appLoads.map((load) => load.last)),
          median(baseLoads.map((load) => load.last)),
        ),
      ],
    ),
  );
  out(
    `next page to its ${PAGE_SIZE} thumbnails painted: median ${fixed(median(paging))} ms, slowest ${fixed(Math.max(...paging))} ms (${paging.length} pages)`,
  );
  // A request still open when the thumbnails were painted (the data's stream ends with its last
  // component) has no Resource Timing entry yet: the median is of the loads that had one.
  const step = (name: keyof Steps) => {
    const known = appLoads.map((load) => load.steps?.[name] ?? Number.NaN).filter(Number.isFinite);
    return known.length === 0
      ? 'n/a'
      : `${fixed(median(known))}${known.length < appLoads.length ? ` (${known.length} loads)` : ''}`;
  };
  out(
    `the gallery's loads, medians in ms from navigation: app script in ${step('appScript')}, data asked ${step('dataAsked')} ` +
      `and answered ${step('dataAnswered')}, first thumbnail asked ${step('thumbnailAsked')} and answered ${step('thumbnailAnswered')}`,
  );
  const thumbnails = requests.filter((url) => url.includes('size=thumbnail')).length;
  const full = requests.filter((url) => url.includes('size=full')).length;
  out(
    `image requests: ${thumbnails} thumbnails, ${full} full images (${figures.runs} loads, scrolling, ${paging.length} pages)`,
  );
  out();
}
