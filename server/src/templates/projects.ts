import { open, realpath } from 'node:fs/promises';
import {
  type AppliedTemplate,
  applyTemplate,
  type TemplateProject,
  TemplateVariablesError,
  templateFiles,
  type templateProjectRequestSchema,
} from '@service/common';
import { stringify } from 'yaml';
import type { z } from 'zod';
import type { ProjectDefinitions } from '../definitions/service.js';
import { DomainError } from '../errors.js';
import { walkRun } from '../ingestion/scan-fs.js';
import type { IngestionService } from '../ingestion/service.js';
import { assertLocationsAllowed, isInsideAllowedRoots, realRoots } from '../locations/allowed-roots.js';
import type { UserActor } from '../policy/actor.js';
import { authorize } from '../policy/policy.js';
import type { ProjectsService } from '../projects/service.js';
import type { DataLocationGuard } from '../workflows/location-guard.js';
import type { TemplateCatalog } from './catalog.js';
import type { TemplateDashboardsService } from './dashboards.js';

/** A folder read for a template is walked up to this many files; past it, the folder is refused. */
export const MAX_TEMPLATE_FILES = 20_000;

export interface TemplateProjectDeps {
  catalog: Pick<TemplateCatalog, 'get'>;
  definitions: Pick<ProjectDefinitions, 'import'>;
  templateDashboards: Pick<TemplateDashboardsService, 'apply'>;
  ingestion: Pick<IngestionService, 'trigger' | 'runNow'>;
  projects: Pick<ProjectsService, 'findOwnByName'>;
  locations: Pick<DataLocationGuard, 'authorizeDeclared'>;
  allowedRoots: readonly string[];
  jobsEnabled: boolean;
}

type Request = z.output<typeof templateProjectRequestSchema>;

/**
 * A project made from a template and a folder on the server (docs/templates.md "From the web
 * app"): the server does what `service ingest --template` does on a person's machine, reading the
 * folder in place (a data location) instead of uploading it.
 */
export class TemplateProjects {
  constructor(private readonly deps: TemplateProjectDeps) {}

  async make(actor: UserActor, request: Request): Promise<TemplateProject> {
    authorize(actor, 'project.create');
    const { location } = request;
    // Who may point the server at this folder, before anything in it is read.
    assertLocationsAllowed([location], this.deps.allowedRoots, 'body.location');
    await this.deps.locations.authorizeDeclared(actor, undefined, [{ path: 'body.location', location }]);
    const template = await this.deps.catalog.get(request.template_id);
    const files = await this.folderFiles(location);
    const applied = await this.apply(template, files, request);
    const plan = {
      template_id: template.template_id,
      variables: applied.variables,
      collections: Object.entries(applied.files).map(([tag, taken]) => ({ tag, files: taken.length })),
      left_out: applied.left_out,
    };
    if (request.dry_run) return { ...plan, project_id: null, dashboard_id: null, job_id: null, run_id: null };
    if ((await this.deps.projects.findOwnByName(actor, { name: request.name })) !== undefined)
      throw new DomainError('name_taken', 'you already have a project with this name', [
        { path: 'body.name', message: 'you already have a project with this name' },
      ]);
    const [workflow] = applied.definition.workflows;
    const definition = {
      ...applied.definition,
      workflows: workflow
        ? [{ ...workflow, data_location: { structure: 'flat' as const, locations: [location] } }]
        : [],
    };
    const { project_id: projectId } = await this.deps.definitions.import(actor, stringify(definition));
    const placed =
      applied.dashboards.length === 0
        ? null
        : await this.deps.templateDashboards.apply(actor, projectId, {
            template_id: template.template_id,
            dashboards: applied.dashboards,
          });
    plan.left_out.components.push(...(placed?.left_out ?? []));
    const options = { overwrite: false, trigger: 'api' as const };
    const run = this.deps.jobsEnabled
      ? await this.deps.ingestion.trigger(actor, projectId, options)
      : await this.deps.ingestion.runNow(actor, projectId, options);
    return {
      ...plan,
      project_id: projectId,
      dashboard_id: placed?.items[0]?.dashboard_id ?? null,
      job_id: run.job_id,
      run_id: run.run_id,
    };
  }

  /** The folder's files (paths relative to it, `/`-separated), never leaving the allowed roots. */
  private async folderFiles(location: string): Promise<Map<string, string>> {
    const roots = await realRoots(this.deps.allowedRoots);
    const real = await realpath(location).catch(() => null);
    if (real === null || !isInsideAllowedRoots(real, roots))
      throw folderProblem('no folder at this path on the server');
    const files = new Map<string, string>();
    for await (const item of walkRun(real, location, roots)) {
      if (item.kind === 'unreadable' && item.relative === '') throw folderProblem(`the ${item.reason}`);
      if (item.kind !== 'file') continue;
      files.set(item.relative, item.real);
      if (files.size > MAX_TEMPLATE_FILES) throw folderProblem(`more than ${MAX_TEMPLATE_FILES} files`);
    }
    return files;
  }

  private async apply(
    template: Awaited<ReturnType<TemplateCatalog['get']>>,
    files: ReadonlyMap<string, string>,
    request: Request,
  ): Promise<AppliedTemplate> {
    const taken = templateFiles(template, [...files.keys()]);
    try {
      return await applyTemplate(
        template,
        {
          files: [...files.keys()],
          async columnsOf(tag) {
            const first = (taken[tag] ?? []).find((path) => /\.(tsv|csv|txt)$/i.test(path));
            return first === undefined ? null : headerOf(files.get(first) as string, first.endsWith('.csv'));
          },
        },
        { name: request.name, variables: request.variables },
      );
    } catch (error) {
      if (!(error instanceof TemplateVariablesError)) throw error;
      const problems = [
        ...error.missing.map((name) => ({ path: `body.variables.${name}`, message: 'needs a value' })),
        ...error.unknown.map((name) => ({
          path: `body.variables.${name}`,
          message: 'the template has no such variable',
        })),
      ];
      throw new DomainError('validation_failed', error.message, problems);
    }
  }
}

const folderProblem = (message: string) =>
  new DomainError('validation_failed', 'the folder cannot be read', [{ path: 'body.location', message }]);

/** The column names on the first line of a delimited file. */
async function headerOf(path: string, csv: boolean): Promise<string[] | null> {
  const handle = await open(path).catch(() => null);
  if (handle === null) return null;
  try {
    const buffer = Buffer.alloc(256 * 1024);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const first = buffer.subarray(0, bytesRead).toString('utf8').split(/\r?\n/)[0] ?? '';
    if (first === '') return null;
    return first.split(csv ? ',' : '\t').map((name) => name.trim().replace(/^"(.*)"$/, '$1'));
  } finally {
    await handle.close();
  }
}
