import { open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type AppliedTemplate,
  applyTemplate,
  chooseTemplate,
  type Template,
  type TemplateDashboards,
  type TemplateList,
  templateFiles,
} from '@service/common';
import type { LocalFile } from './ingest-upload.js';

/** The ingest command's client, with the problems of a refused request kept. */
export interface TemplateApi {
  call<T>(method: string, path: string, body?: unknown): Promise<T>;
}

/** A request the server refused: its status and field problems. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly problems: { path: string; message: string }[],
  ) {
    super(message);
  }
}

/** `--var NAME=VALUE`, collected. */
export function collectVariable(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const at = value.indexOf('=');
  if (at <= 0) throw new Error(`--var takes NAME=VALUE, not ${value}`);
  return { ...previous, [value.slice(0, at)]: value.slice(at + 1) };
}

async function head(path: string, bytes: number): Promise<string> {
  const handle = await open(path);
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead).toString('latin1');
  } finally {
    await handle.close();
  }
}

const NF_CORE = /nf-core\/([a-z0-9-]+)["']?\s*[:,=]?\s*["']?v?(\d+\.\d+(?:\.\d+)?)?/;

/**
 * The pipeline and version the folder's own records name: nf-core's `pipeline_info/` software
 * versions (`Workflow: {nf-core/ampliseq: v2.16.0}`), else the MultiQC report (its title or data).
 */
export async function recordedPipeline(dir: string): Promise<{ pipeline: string; version: string | null } | null> {
  const infoDir = join(dir, 'pipeline_info');
  const info = (await readdir(infoDir).catch(() => [] as string[])).filter((name) =>
    /versions.*\.ya?ml$|\.json$/i.test(name),
  );
  const candidates = [
    ...info.map((name) => join(infoDir, name)),
    join(dir, 'multiqc', 'multiqc_report.html'),
    join(dir, 'multiqc', 'multiqc_data', 'multiqc_data.json'),
    join(dir, 'multiqc', 'multiqc_data', 'multiqc.parquet'),
  ];
  for (const path of candidates) {
    const text = await head(path, 4 * 1024 * 1024).catch(() => '');
    const match = NF_CORE.exec(text);
    if (match) return { pipeline: `nf-core/${match[1]}`, version: match[2] ?? null };
  }
  return null;
}

/** The template asked for (`--template`; 404: a clear error), else one that fits the folder, else null. */
export async function folderTemplate(
  api: TemplateApi,
  dir: string,
  files: readonly LocalFile[],
  asked: string | undefined,
): Promise<Template | null> {
  if (asked !== undefined) {
    try {
      return await api.call<Template>('GET', `/templates/${asked.split('/').map(encodeURIComponent).join('/')}`);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404)
        throw new Error(`unknown template ${asked}: ${error.message}`);
      throw error;
    }
  }
  const list = await api.call<TemplateList>('GET', '/templates');
  if (list.items.length === 0) return null;
  const templates = await Promise.all(
    list.items.map((item) => api.call<Template>('GET', `/templates/${item.template_id}`)),
  );
  return chooseTemplate(
    templates,
    files.map((file) => file.path),
    await recordedPipeline(dir),
  );
}

/** The header of a delimited file: its column names. */
async function columnsOfFile(path: string): Promise<string[] | null> {
  const first = (await head(path, 256 * 1024).catch(() => '')).split(/\r?\n/)[0] ?? '';
  if (first === '') return null;
  const delimiter = path.endsWith('.csv') ? ',' : '\t';
  return first.split(delimiter).map((name) => name.trim().replace(/^"(.*)"$/, '$1'));
}

/** The template applied to the folder's files, their columns read from the files' headers. */
export function applyToFolder(
  template: Template,
  files: readonly LocalFile[],
  options: { name: string; variables: Record<string, string> },
): Promise<AppliedTemplate> {
  const byPath = new Map(files.map((file) => [file.path, file.absolute]));
  const taken = templateFiles(template, [...byPath.keys()]);
  return applyTemplate(
    template,
    {
      files: files.map((file) => file.path),
      async columnsOf(tag) {
        const first = (taken[tag] ?? []).find((path) => /\.(tsv|csv|txt)$/i.test(path));
        return first === undefined ? null : columnsOfFile(byPath.get(first) as string);
      },
    },
    options,
  );
}

/**
 * The template's dashboards in the project, through `PUT /projects/{id}/template-dashboards`
 * (the server's one place for it, docs/templates.md "Re-running"): made the first time; later an
 * unedited one is updated, an edited one keeps its edits and is offered the new version. Says
 * what became of each; answers the first one's id.
 */
export async function ensureTemplateDashboards(
  api: TemplateApi,
  projectId: string,
  applied: AppliedTemplate,
  say: (line: string) => void,
): Promise<{ dashboardId: string; created: boolean; outcome: string }> {
  if (applied.dashboards.length === 0) throw new Error('the template made no dashboard of this folder');
  const answer = await api.call<TemplateDashboards>(
    'PUT',
    `/projects/${encodeURIComponent(projectId)}/template-dashboards`,
    {
      template_id: applied.template_id,
      dashboards: applied.dashboards,
    },
  );
  applied.left_out.components.push(...answer.left_out);
  if (answer.left_out.length > 0) say(`Left out (the data cannot answer them): ${answer.left_out.join(', ')}.`);
  for (const item of answer.items) {
    if (item.outcome === 'offered')
      say(
        `Dashboard ${item.dashboard_id} ("${item.title}") was edited since it was generated: kept as it is; the new generated version is offered on its page.`,
      );
    else if (item.outcome === 'unchanged') say(`Dashboard ${item.dashboard_id} ("${item.title}") is up to date.`);
  }
  const first = answer.items[0];
  if (!first) throw new Error('the template made no dashboard of this folder');
  const outcome = first.outcome === 'offered' ? 'kept (a new version is offered)' : first.outcome;
  return { dashboardId: first.dashboard_id, created: first.outcome === 'created', outcome };
}
