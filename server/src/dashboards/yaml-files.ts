import { type DashboardComponent, type DashboardYaml, dashboardYamlSchema, readsCollection } from '@service/common';
import { stringify } from 'yaml';
import { DomainError, type FieldProblem } from '../errors.js';
import type { Actor, UserActor } from '../policy/actor.js';
import { can } from '../policy/policy.js';
import type { ProjectsService } from '../projects/service.js';
import { readLocatedYaml, schemaProblems } from '../yaml/located.js';
import type { DashboardHistory } from './history.js';
import { colorsOf, componentsOf, type DashboardsService, layoutOf, tabsOf, type Versioned } from './service.js';
import { partsOfInvalidFile } from './yaml-parts.js';

export const MAX_DASHBOARD_YAML_BYTES = 512 * 1024;

const NO_PROJECT: FieldProblem = {
  path: 'project_id',
  message: 'name the project: project_id in the file, or the project_id query parameter',
};

/** A file may name a collection by tag, so an unknown one is said in those words. */
const inFile = (problems: FieldProblem[]): FieldProblem[] =>
  problems.map((problem) =>
    problem.path.endsWith('.data_collection_id') && problem.message.startsWith('no data collection')
      ? {
          ...problem,
          message:
            'no data collection of this project has this id, nor this tag (a tag in several workflows needs the id)',
        }
      : problem,
  );

/**
 * Dashboards as files (`dashboard.yaml`, docs/dashboards.md "Dashboards as YAML"): export one,
 * import one into a project. A file names collections by tag where it can, so it works for any
 * project made from the same project.yaml; the import turns tags back into ids.
 */
export class DashboardFiles {
  constructor(
    private readonly dashboards: Pick<
      DashboardsService,
      'access' | 'createVersioned' | 'collectionProblems' | 'repository'
    >,
    private readonly projects: Pick<ProjectsService, 'access'>,
    private readonly history: Pick<DashboardHistory, 'atRevision'>,
  ) {}

  /**
   * The dashboard as YAML, for its readers; a past revision's content for its editors (history.ts).
   * Collections go by tag only for those who read the project.
   */
  async export(actor: Actor, dashboardId: string, revision?: number): Promise<string> {
    const { record, project } =
      revision === undefined
        ? await this.dashboards.access(actor, dashboardId, 'resource.read')
        : await this.history.atRevision(actor, dashboardId, revision);
    const projectId = record.row.project_id;
    const tags = can(actor, 'resource.read', project) ? await this.uniqueTags(projectId) : new Map<string, string>();
    const tabs = tabsOf(record);
    const colors = colorsOf(record);
    const file: Omit<DashboardYaml, 'tabs'> & { tabs?: DashboardYaml['tabs'] } = {
      project_id: projectId,
      title: record.row.title,
      description: record.row.description,
      // A dashboard of one implicit tab writes none, as files written before tabs existed.
      ...(tabs.length > 0 ? { tabs } : {}),
      components: componentsOf(record).map((component) =>
        readsCollection(component)
          ? {
              ...component,
              data_collection_id: tags.get(component.data_collection_id) ?? component.data_collection_id,
            }
          : component,
      ),
      layout: layoutOf(record),
      // The palette travels with the file, so the copy it makes draws the same colours.
      ...(colors.length > 0 ? { colors } : {}),
    };
    return `# A dashboard (docs/dashboards.md); its JSON Schema: GET /service/api/v1/dashboards/schema\n${stringify(file, { lineWidth: 0 })}`;
  }

  /**
   * Creates a dashboard from a file, owned by the caller, in `projectId` or else the file's
   * `project_id` (editors of that project). Every problem comes back with its line and column, all
   * of them in one answer: the schema's, those between the parts that parse, and the collections'.
   */
  async import(actor: UserActor, text: string, projectId: string | undefined): Promise<Versioned> {
    const { raw, locate } = readLocatedYaml(text, 'dashboard');
    const parsed = dashboardYamlSchema.safeParse(raw);
    if (!parsed.success) return this.refuse(actor, raw, schemaProblems(parsed.error), projectId, locate);
    const value = parsed.data;
    const target = projectId ?? value.project_id;
    if (target === undefined)
      throw new DomainError('validation_failed', 'the dashboard names no project', locate([NO_PROJECT]));
    // Before anything about its collections is looked at: tags are the project's to know.
    await this.projects.access(actor, target, 'resource.edit');
    const components = await this.withIds(target, value.components);
    try {
      return await this.dashboards.createVersioned(actor, {
        project_id: target,
        title: value.title,
        description: value.description,
        tabs: value.tabs,
        components,
        layout: value.layout,
        ...(value.colors === undefined ? {} : { colors: value.colors }),
        is_public: false,
        template: 'empty',
      });
    } catch (error) {
      if (error instanceof DomainError && error.errors !== undefined) {
        const problems = error.errors.map((problem) => ({ ...problem, path: problem.path.replace(/^body\./, '') }));
        throw new DomainError(error.code, error.message, locate(inFile(problems)));
      }
      throw error;
    }
  }

  /**
   * Refuses a file the schema refused, with every problem found in it: the schema's, those between
   * the parts that parse, and (for editors of its project) its components' collections and columns.
   */
  private async refuse(
    actor: UserActor,
    raw: unknown,
    schema: FieldProblem[],
    projectId: string | undefined,
    locate: (problems: FieldProblem[]) => FieldProblem[],
  ): Promise<never> {
    const parts = partsOfInvalidFile(raw);
    const problems = [...schema, ...parts.problems];
    const target = projectId ?? parts.projectId;
    if (target !== undefined) {
      await this.projects.access(actor, target, 'resource.edit');
      const components = await this.withIds(target, parts.components);
      problems.push(...inFile(await this.dashboards.collectionProblems(target, components)));
    } else if (!problems.some((problem) => problem.path === 'project_id')) {
      problems.push(NO_PROJECT);
    }
    const located = locate(problems).sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
    const count = located.length === 1 ? 'one problem' : `${located.length} problems`;
    throw new DomainError('validation_failed', `the dashboard has ${count}: each is listed with its line`, located);
  }

  /** Components with collections named by tag turned into their ids. */
  async withIds(projectId: string, components: readonly DashboardComponent[]): Promise<DashboardComponent[]> {
    const ids = await this.idsByTag(projectId);
    return components.map((component) =>
      readsCollection(component)
        ? { ...component, data_collection_id: ids.get(component.data_collection_id) ?? component.data_collection_id }
        : component,
    );
  }

  /** Collection id → tag, for the tags used once in the project. */
  private async uniqueTags(projectId: string): Promise<Map<string, string>> {
    const byTag = await this.idsByTag(projectId);
    return new Map([...byTag].map(([tag, id]) => [id, tag]));
  }

  /** Tag → collection id, for the tags used once in the project (one in several workflows names none). */
  private async idsByTag(projectId: string): Promise<Map<string, string>> {
    const collections = await this.dashboards.repository.collectionsOfProject(projectId);
    const counts = new Map<string, number>();
    for (const { tag } of collections) counts.set(tag, (counts.get(tag) ?? 0) + 1);
    return new Map(collections.filter(({ tag }) => counts.get(tag) === 1).map(({ id, tag }) => [tag, id]));
  }
}
