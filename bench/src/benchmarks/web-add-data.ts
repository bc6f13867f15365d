/**
 * The Add data part of the `web` benchmark (web.ts): a 50 MB CSV chosen in the project page's Add
 * data, timed in the page from the file input's change to the preview's first row in the DOM and
 * to the frame after it (painted). Baseline, in the same run and taking turns: the preview request
 * alone, the same first MiB the app sends (web/src/adddata/plan.ts) posted from Node to
 * `POST /projects/{id}/files/preview`.
 */
import { open, stat } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { generateCsv } from './ingest-data.js';

/** The CSV's size as the issue states it (50 MB); generated rows of the ingest benchmark's shape. */
export const ADD_DATA_BYTES = 50_000_000;
/** Rows of generateCsv's shape that make over 50 MB. */
const ADD_DATA_ROWS = 560_000;
/** What the app sends of a CSV for its preview: the lines within its first MiB (plan.ts). */
const PREVIEW_HEAD_BYTES = 1024 ** 2;

// Kept as text: this package is compiled without the DOM's types.
const WATCH_ADD_DATA = `(() => {
  document.addEventListener('change', (event) => {
    if (event.target && event.target.type === 'file') window.__chosenAt = performance.now();
  }, true);
  const observer = new MutationObserver(() => {
    if (window.__previewRows !== undefined) return;
    if (!document.querySelector('table[aria-label="Preview of the first rows"] tbody tr td')) return;
    window.__previewRows = performance.now();
    requestAnimationFrame(() => setTimeout(() => { window.__previewPainted = performance.now(); }));
  });
  document.addEventListener('DOMContentLoaded', () => observer.observe(document.body, { childList: true, subtree: true }));
})()`;

/** The three times, once the frame after the first row has run (a promise: the CSP forbids waitForFunction's eval). */
const TIMES_ONCE_PAINTED = `new Promise((resolve) => {
  const check = () => window.__previewPainted === undefined
    ? requestAnimationFrame(check)
    : resolve([window.__chosenAt, window.__previewRows, window.__previewPainted]);
  check();
})`;

export interface AddDataMeasured {
  bytes: number;
  /** From the file chosen to the preview's first row in the DOM, and to the frame after it. */
  rows: number[];
  painted: number[];
  /** The preview request alone from Node, taking turns with the browser. */
  request: number[];
}

/** Writes the CSV (printed by the caller, part of no figure); answers its size. */
export async function writeAddDataCsv(path: string): Promise<number> {
  const { bytes } = await generateCsv(path, ADD_DATA_ROWS);
  if (bytes < ADD_DATA_BYTES) throw new Error(`the Add data CSV has ${bytes} bytes, under 50 MB`);
  return bytes;
}

export async function measureAddData(
  browser: Browser,
  url: string,
  api: string,
  session: Record<string, unknown>,
  projectId: string,
  csvPath: string,
  turns: number,
): Promise<AddDataMeasured> {
  const stored = JSON.stringify({
    access_token: session.access_token,
    refresh_token: session.refresh_token,
    user: session.user,
  });
  const measured: AddDataMeasured = { bytes: (await stat(csvPath)).size, rows: [], painted: [], request: [] };
  const head = await previewHead(csvPath);
  for (let turn = 0; turn < turns; turn++) {
    const alone = () => previewAlone(api, String(session.access_token), projectId, head);
    if (turn % 2 === 1) measured.request.push(await alone());
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addInitScript(`localStorage.setItem('service.session', ${JSON.stringify(stored)})`);
    await context.addInitScript(WATCH_ADD_DATA);
    const page = await context.newPage();
    await page.goto(`${url}/projects/${projectId}?add=1`);
    await page.getByRole('button', { name: 'Choose files…' }).waitFor({ timeout: 60_000 });
    await page.setInputFiles('input[type="file"]', csvPath);
    await page.waitForSelector('table[aria-label="Preview of the first rows"] tbody tr td', { timeout: 60_000 });
    const times = (await page.evaluate(TIMES_ONCE_PAINTED)) as (number | undefined)[];
    const [chosen, rows, painted] = times;
    if (chosen === undefined || rows === undefined || painted === undefined)
      throw new Error(`Add data: times not noted (${JSON.stringify(times)})`);
    measured.rows.push(rows - chosen);
    measured.painted.push(painted - chosen);
    await context.close();
    if (turn % 2 === 0) measured.request.push(await alone());
  }
  return measured;
}

/** The lines within the file's first MiB, cut at the last line break (as plan.ts's previewPartOf). */
async function previewHead(path: string): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(PREVIEW_HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, PREVIEW_HEAD_BYTES, 0);
    const lastBreak = buffer.subarray(0, bytesRead).lastIndexOf(10);
    return buffer.subarray(0, lastBreak < 0 ? bytesRead : lastBreak + 1);
  } finally {
    await handle.close();
  }
}

/** The preview request as the app sends it (20 rows, the format named), from Node; answers its ms. */
async function previewAlone(api: string, token: string, projectId: string, head: Buffer): Promise<number> {
  const form = new FormData();
  form.append('options', JSON.stringify({ format: 'csv', read_options: {}, limit: 20 }));
  form.append('file', new Blob([head], { type: 'text/csv' }), 'add-data.csv');
  const started = performance.now();
  const answer = await fetch(`${api}/projects/${projectId}/files/preview`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  await answer.text();
  if (!answer.ok) throw new Error(`Add data preview alone: HTTP ${answer.status}`);
  return performance.now() - started;
}
