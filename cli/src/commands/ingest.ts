import { open, readdir, readFile, stat } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import { type AppliedTemplate, compileFilePattern } from '@service/common';
import { API_PREFIX } from '@service/server/basics';
import { Command } from 'commander';
import { parse, stringify } from 'yaml';
import { progress } from '../progress.js';
import { formatProblems, type Problem } from './api-client.js';
import {
  ApiError,
  applyToFolder,
  collectVariable,
  ensureTemplateDashboards,
  folderTemplate,
} from './ingest-template.js';
import { type LocalFile, type Upload, uploadFiles } from './ingest-upload.js';
import { ensureDashboard } from './overview-dashboard.js';

type Format = 'csv' | 'tsv' | 'parquet' | 'json' | 'ndjson';
const FORMATS: Record<string, Format> = {
  csv: 'csv',
  tsv: 'tsv',
  parquet: 'parquet',
  json: 'json',
  ndjson: 'ndjson',
  jsonl: 'ndjson',
};

/** Progress goes to standard error; standard output carries only the magic link. */
const say = (line: string) => progress.line(line);

async function* walk(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(full);
    else if (entry.isFile()) yield full;
  }
}

const MULTIQC_REPORT = 'multiqc.parquet';
const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const formatOf = (path: string): Format | undefined => FORMATS[path.split('.').pop()?.toLowerCase() ?? ''];

async function firstLine(path: string): Promise<string> {
  const handle = await open(path);
  try {
    const buffer = Buffer.alloc(64 * 1024);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString('utf8').split(/\r?\n/)[0] ?? '';
  } finally {
    await handle.close();
  }
}

/**
 * A project definition for a folder without project.yaml: one workflow named after the folder,
 * and one table collection per group of files with the same format and the same columns (a MultiQC
 * report, `multiqc.parquet`, is a collection of type multiqc).
 */
async function inferDefinition(name: string, files: LocalFile[]) {
  const groups = new Map<string, { format: Format; paths: string[] }>();
  for (const file of files) {
    const format = formatOf(file.path);
    if (!format) continue;
    // Delimited files group by their header; other formats by their name without the run.
    const signature = format === 'csv' || format === 'tsv' ? await firstLine(file.absolute) : basename(file.path);
    const key = `${format}\u0000${signature}`;
    const group = groups.get(key) ?? { format, paths: [] };
    if (!group.paths.includes(file.path)) group.paths.push(file.path);
    groups.set(key, group);
  }
  const tags = new Set<string>();
  const collections: { tag: string; type: 'table' | 'multiqc' | 'image'; format: Format; pattern: string }[] = [
    ...groups.values(),
  ].map((group) => {
    const stem =
      (basename(group.paths[0] as string).split('.')[0] ?? 'table')
        .replace(/[^A-Za-z0-9_.-]/g, '_')
        .replace(/^[^A-Za-z0-9]+/, '') || 'table';
    let tag = stem;
    for (let n = 2; tags.has(tag); n++) tag = `${stem}_${n}`;
    tags.add(tag);
    // MultiQC's data (`multiqc_data/multiqc.parquet`) is a report, not a table of rows.
    const type =
      basename(group.paths[0] as string) === MULTIQC_REPORT && group.format === 'parquet' ? 'multiqc' : 'table';
    return { tag, type, format: group.format, pattern: group.paths.map(escapeRegex).join('|') };
  });
  for (const folder of imageFolders(files)) {
    const stem = (folder.split('/').at(-1) ?? '').replace(/[^A-Za-z0-9_.-]/g, '_').replace(/^[^A-Za-z0-9]+/, '');
    let tag = stem || 'images';
    for (let n = 2; tags.has(tag); n++) tag = `${stem || 'images'}_${n}`;
    tags.add(tag);
    // Each image's name (its file name without the extension) becomes the `name` column.
    const prefix = folder === '' ? '' : `${escapeRegex(folder)}/`;
    collections.push({ tag, type: 'image', format: 'csv', pattern: `${prefix}(?P<name>[^/]+)\\.${IMAGE_EXTENSIONS}` });
  }
  return { name, workflows: [{ name, data_collections: collections }] };
}

/** Extensions of the image files an inferred image collection takes (docs/dashboards.md "Images"). */
const IMAGE_EXTENSIONS = '(?i:png|jpe?g|webp|gif|tiff?|avif|svg)';

/** The folders holding image files (`''` the results folder itself), each one image collection. */
function imageFolders(files: readonly LocalFile[]): string[] {
  const image = compileFilePattern(`(?:.*/)?[^/]+\\.${IMAGE_EXTENSIONS}`);
  const folders = files
    .filter((file) => image.test(file.path))
    .map((file) => file.path.split('/').slice(0, -1).join('/'));
  return [...new Set(folders)].sort();
}

interface Api {
  call<T>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<T>;
  token: string;
}

function client(server: string): Api {
  const api: Api = {
    token: '',
    async call<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
      const response = await fetch(`${server}${API_PREFIX}${path}`, {
        method,
        headers: {
          ...(api.token ? { authorization: `Bearer ${api.token}` } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      const answer = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
      if (!response.ok) {
        // A refused dashboard.yaml names each problem's line and column: pass them on.
        const problems = Array.isArray(answer.errors)
          ? `\n${formatProblems(path.startsWith('/dashboards/import') ? 'dashboard.yaml' : 'body', answer.errors as Problem[])}`
          : '';
        throw new ApiError(
          `${method} ${path} answered ${response.status}: ${String(answer.detail ?? answer.title ?? text)}${problems}`,
          response.status,
          Array.isArray(answer.errors) ? (answer.errors as Problem[]) : [],
        );
      }
      return answer as T;
    },
  };
  return api;
}

/**
 * Where the link leads: the dashboard, made or updated. When making it fails, the data is in all
 * the same: the link leads to the project, standard error says what failed, and the command exits
 * 1 only when the ingestion itself failed too (nothing usable was made).
 */
async function linkTarget(
  api: Pick<Api, 'call'>,
  projectId: string,
  dashboardYamlPath: string,
  ingestion: string | undefined,
  applied: AppliedTemplate | null,
): Promise<string> {
  try {
    const dashboardYaml = await readFile(dashboardYamlPath, 'utf8').catch(() => null);
    const dashboard: { dashboardId: string; created: boolean; outcome?: string } =
      applied !== null && dashboardYaml === null
        ? await ensureTemplateDashboards(api, projectId, applied, say)
        : await ensureDashboard((method, path, body) => api.call(method, path, body), projectId, dashboardYaml);
    say(`Dashboard ${dashboard.dashboardId} ${dashboard.outcome ?? (dashboard.created ? 'created' : 'updated')}.`);
    return `/dashboards/${dashboard.dashboardId}`;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    progress.clear();
    process.stderr.write(`service: the dashboard could not be made: ${reason}\n`);
    say(`The data is in project ${projectId}; the link leads to the project.`);
    if (ingestion === 'failed') process.exitCode = 1;
    return `/projects/${projectId}`;
  }
}

export function ingestCommand(): Command {
  return new Command('ingest')
    .description(
      'Provision a user, upload a results folder as their project, ingest it, make an overview dashboard, and print a sign-in link to it.',
    )
    .argument('<results_dir>', 'pipeline output folder (with an optional project.yaml)')
    .requiredOption('--user <email>', 'the account to create or use')
    .option('--server <url>', 'server address (default: SERVICE_PUBLIC_URL)')
    .option('--provisioning-key <key>', 'the provisioning key (default: SERVICE_AUTH_PROVISIONING_API_KEY)')
    .option('--template <template_id>', 'apply this template (GET /templates), e.g. nf-core/ampliseq/2.16.0')
    .option('--var <NAME=VALUE>', "a template variable's value (repeat for several)", collectVariable)
    .addHelpText(
      'after',
      `
Only the magic link is printed on standard output; progress goes to standard error, so
  link=$(service ingest ./results --user ada@example.org)
captures exactly the link. Files already uploaded with the same content are skipped, so an
interrupted run can simply be repeated. Without project.yaml, one workflow named after the folder
is inferred, with one table per group of files that share a format and columns and one image
collection per folder of images; sub-folders are runs when project.yaml declares structure "runs",
otherwise the folder is one run. The link opens the folder's dashboard.yaml when it has one (see
service dashboard import), else the project's generated overview dashboard (per data collection,
from its column statistics: key numbers, filters, distributions, counts, a time series, a map,
correlated pairs, a table or gallery; collections sharing a sample column joined; a tab each when
there are many); created on the first run and regenerated by later ones.

With --template (an id of GET /templates, or a pipeline alone for its newest version), the
template declares the collections, joins and dashboards (docs/templates.md); --var NAME=VALUE sets
its variables (the others are detected from the data or take their default). Without
--template and project.yaml, the folder's pipeline_info/ and MultiQC report name the pipeline and
version, or the template's characteristic files are found, and a fitting template is applied; else
the generic overview. Parts of a template whose files are absent are left out.

When the data is in but the dashboard cannot be made (a bad dashboard.yaml, a server error), the
link leads to the project instead and standard error says what failed.

Exit codes: 0 link printed; 1 with a one-line reason (server unreachable, wrong key, invalid
project.yaml, upload refused, ingestion failed; or the link printed but neither data nor
dashboard made); 2 wrong command line.`,
    )
    .action(async (resultsDir: string, options: IngestOptions) => {
      const { server, key } = await checkOptions(resultsDir, options);
      const api = client(server);
      const capabilities = await signIn(api, options.user, key);
      const declared = options.template === undefined ? await readDefinition(resultsDir) : null;
      const files = await localFiles(resultsDir, declared);
      const applied = await appliedTemplate(api, resultsDir, files, declared === null, options);
      const definition = applied?.definition ?? declared;
      const projectId = await importProject(api, resultsDir, definition, files);
      const collections = await projectCollections(api, projectId);
      await uploadFiles(api, server, matchFiles(files, collections));
      const status = await ingest(api, projectId, capabilities.features.includes('jobs'));
      say(`Ingestion ended: ${status ?? 'unknown'}.`);
      const next = await linkTarget(api, projectId, join(resultsDir, 'dashboard.yaml'), status, applied);
      const link = await api.call<{ url: string }>('POST', '/auth/magic_link', { next });
      process.stdout.write(`${link.url}\n`);
    });
}

interface IngestOptions {
  user: string;
  server?: string;
  provisioningKey?: string;
  template?: string;
  var?: Record<string, string>;
}

/**
 * The template applied to the folder: the one asked for, else (a folder without project.yaml) the
 * one its pipeline records or files point to; null: the generic overview.
 */
async function appliedTemplate(
  api: Api,
  resultsDir: string,
  files: LocalFile[],
  mayDetect: boolean,
  options: IngestOptions,
): Promise<AppliedTemplate | null> {
  if (options.template === undefined && !mayDetect) {
    if (options.var !== undefined) throw new Error('--var needs --template (the folder has a project.yaml)');
    return null;
  }
  const template = await folderTemplate(api, resultsDir, files, options.template);
  if (template === null) return null;
  const name = basename(resultsDir);
  const applied = await applyToFolder(template, files, { name, variables: options.var ?? {} });
  say(
    `Template ${template.template_id}: ${applied.definition.workflows[0]?.data_collections.length ?? 0} collections.`,
  );
  if (applied.left_out.collections.length > 0) say(`Left out (no files): ${applied.left_out.collections.join(', ')}.`);
  return applied;
}

/** The server and provisioning key (options, else the environment), and a results folder that exists. */
async function checkOptions(resultsDir: string, options: IngestOptions): Promise<{ server: string; key: string }> {
  const server = (options.server ?? process.env.SERVICE_PUBLIC_URL ?? '').replace(/\/+$/, '');
  const key = options.provisioningKey ?? process.env.SERVICE_AUTH_PROVISIONING_API_KEY;
  if (server === '') throw new Error('give the server with --server or SERVICE_PUBLIC_URL');
  if (!key) throw new Error('give the provisioning key with --provisioning-key or SERVICE_AUTH_PROVISIONING_API_KEY');
  if (!(await stat(resultsDir).catch(() => null))?.isDirectory()) throw new Error(`${resultsDir} is not a folder`);
  return { server, key };
}

/** Provisions (or finds) the user and signs the client in as them; answers what the server can do. */
async function signIn(api: Api, email: string, key: string): Promise<{ features: string[] }> {
  say(`Signing in ${email}…`);
  const session = await api.call<{ access_token: string; created: boolean }>(
    'POST',
    '/auth/provision_user',
    { email },
    { 'x-provisioning-key': key },
  );
  api.token = session.access_token;
  return api.call<{ features: string[] }>('GET', '/utils/capabilities');
}

type TemplateDefinition = AppliedTemplate['definition'];

interface ProjectDefinition {
  name?: string;
  workflows?: { data_location?: { structure?: string; runs_regex?: string } }[];
}

/** The folder's project.yaml, or null without one. */
async function readDefinition(resultsDir: string): Promise<ProjectDefinition | null> {
  const declared = await readFile(join(resultsDir, 'project.yaml'), 'utf8').catch(() => null);
  return declared === null ? null : (parse(declared) as ProjectDefinition);
}

/**
 * The files to upload, each with its run: the sub-folders matching `runs_regex` when project.yaml
 * declares structure "runs" (files elsewhere are left out), else the whole folder as one run.
 */
async function localFiles(resultsDir: string, definition: ProjectDefinition | null): Promise<LocalFile[]> {
  const location = definition?.workflows?.[0]?.data_location;
  const runsRegex = location?.structure === 'runs' ? compileFilePattern(location.runs_regex ?? '', 'search') : null;
  const files: LocalFile[] = [];
  for await (const absolute of walk(resultsDir)) {
    const rel = relative(resultsDir, absolute).split(sep).join('/');
    if (rel === 'project.yaml' || rel === 'dashboard.yaml') continue;
    const [first, ...rest] = rel.split('/');
    if (runsRegex && rest.length > 0 && runsRegex.test(first as string))
      files.push({ run: first as string, path: rest.join('/'), absolute });
    else if (!runsRegex)
      files.push({ run: basename(resultsDir).replace(/[^A-Za-z0-9_.-]/g, '_') || 'run', path: rel, absolute });
  }
  return files;
}

/** Imports the project (declared, or inferred from the files); answers its id. */
async function importProject(
  api: Api,
  resultsDir: string,
  definition: ProjectDefinition | TemplateDefinition | null,
  files: LocalFile[],
): Promise<string> {
  // The server cannot read this machine's folders: the files are uploaded instead.
  for (const workflow of (definition?.workflows ?? []) as { data_location?: unknown }[]) delete workflow.data_location;
  const yaml =
    definition === null ? stringify(await inferDefinition(basename(resultsDir), files)) : stringify(definition);
  const imported = await api.call<{ project_id: string; created: boolean }>('POST', '/projects/import', { yaml });
  say(`Project ${imported.project_id} ${imported.created ? 'created' : 'updated'}.`);
  return imported.project_id;
}

type Collection = { data_collection_id: string; tag: string; pattern: string };

/** The data collections of every workflow of the project. */
async function projectCollections(api: Api, projectId: string): Promise<Collection[]> {
  const workflows = await api.call<{ items: { workflow_id: string }[] }>(
    'GET',
    `/projects/${projectId}/workflows?limit=200`,
  );
  const pages = await Promise.all(
    workflows.items.map((workflow) =>
      api.call<{ items: Collection[] }>('GET', `/workflows/${workflow.workflow_id}/datacollections?limit=200`),
    ),
  );
  return pages.flatMap((page) => page.items);
}

/** Each file with the first collection whose pattern takes its path; files no pattern takes are left out. */
function matchFiles(files: readonly LocalFile[], collections: readonly Collection[]): Upload[] {
  return files.flatMap((file) => {
    const collection = collections.find((candidate) => compileFilePattern(candidate.pattern).test(file.path));
    return collection ? [{ file, collection }] : [];
  });
}

/** Starts the project's ingestion (a job when the server has jobs) and waits for it; answers the run's status. */
async function ingest(api: Api, projectId: string, asJob: boolean): Promise<string | undefined> {
  const started = await api.call<{ job_id: string | null; run: { status: string } | undefined }>(
    'POST',
    `/projects/${projectId}/ingest`,
    { source: 'cli', async_mode: asJob },
  );
  return started.job_id === null ? started.run?.status : waitForJob(api, started.job_id);
}

interface JobAnswer {
  status: string;
  step: string | null;
  progress: number | null;
  result?: { status: string };
  error?: { message: string };
  poll_after_seconds: number | null;
}

/** Polls the job as the server asks, showing its step; a job that does not succeed is an error. */
async function waitForJob(api: Api, jobId: string): Promise<string | undefined> {
  for (;;) {
    const job = await api.call<JobAnswer>('GET', `/jobs/${jobId}`);
    if (progress.interactive) progress.bar(`Ingestion ${job.step ?? job.status}`, job.progress ?? 0, 1);
    else
      say(
        `Ingestion: ${job.status}${job.step ? ` — ${job.step}` : ''}${job.progress === null ? '' : ` (${Math.round(job.progress * 100)}%)`}`,
      );
    if (job.poll_after_seconds === null) {
      progress.clear();
      if (job.status !== 'success') throw new Error(`ingestion ${job.status}: ${job.error?.message ?? ''}`);
      return job.result?.status;
    }
    await new Promise((resolve) => setTimeout(resolve, (job.poll_after_seconds ?? 1) * 1000));
  }
}
