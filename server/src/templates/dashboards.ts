import { createHash } from 'node:crypto';
import {
  canonicalJson,
  type DashboardComponent,
  type DashboardYaml,
  type GeneratedContent,
  type GeneratedVersion,
  generatedContentSchema,
  generatedKey,
  generatedOutcome,
  summarizeChanges,
  type TemplateDashboards,
  type TemplateDashboardsRequest,
} from '@service/common';
import type { Selectable } from 'kysely';
import type { DashboardsService, Versioned } from '../dashboards/service.js';
import type { DashboardFiles } from '../dashboards/yaml-files.js';
import type { Database } from '../db/database.js';
import type { DashboardsTable } from '../db/tables.js';
import { isoNow } from '../db/time.js';
import { DomainError } from '../errors.js';
import type { Actor, UserActor } from '../policy/actor.js';
import type { ProjectsService } from '../projects/service.js';
import { dashboardRows } from '../tables/dashboards.js';

/** Rounds of leaving out the components the project refuses (each round may reveal no more). */
const LEAVE_OUT_ROUNDS = 5;

/** The SHA-256 of a dashboard's content (keys sorted): equal contents, equal fingerprints. */
export function fingerprintOf(content: GeneratedContent): string {
  const { title, description, tabs, components, layout } = content;
  return createHash('sha256').update(canonicalJson({ title, description, tabs, components, layout })).digest('hex');
}

/** A dashboard row's content, as a generator compares it. */
function storedContent(row: Selectable<DashboardsTable>): GeneratedContent {
  return {
    title: row.title,
    description: row.description,
    tabs: JSON.parse(row.tabs),
    components: JSON.parse(row.components),
    layout: JSON.parse(row.layout),
  };
}

export interface TemplateDashboardsDeps {
  database: Pick<Database, 'db'>;
  dashboards: Pick<DashboardsService, 'createVersioned' | 'update' | 'access' | 'collectionProblems'>;
  files: Pick<DashboardFiles, 'withIds'>;
  projects: Pick<ProjectsService, 'access'>;
}

/**
 * A template's dashboards in a project (docs/templates.md "Re-running"), the one place both
 * `service ingest --template` (through `PUT /projects/{id}/template-dashboards`) and
 * `POST /projects/from-template` apply them: each made the first time; later, an unedited one takes
 * the new content as a new revision, and one a person edited since it was generated keeps the
 * edit, the new generated version offered beside it (`GET /dashboards/{id}/generated`).
 */
export class TemplateDashboardsService {
  constructor(private readonly deps: TemplateDashboardsDeps) {}

  async apply(actor: UserActor, projectId: string, request: TemplateDashboardsRequest): Promise<TemplateDashboards> {
    await this.deps.projects.access(actor, projectId, 'resource.edit');
    const leftOut: string[] = [];
    const items: TemplateDashboards['items'] = [];
    for (const dashboard of request.dashboards) {
      const content = await this.answerable(projectId, dashboard, leftOut);
      const key = generatedKey(request.template_id, content.title);
      const made = await this.place(actor, projectId, { key, templateId: request.template_id, content, dashboard });
      items.push({ dashboard_id: made.id, title: content.title, outcome: made.outcome });
    }
    return { items, left_out: leftOut };
  }

  /** The dashboard's content, collections by id, without the components the project cannot answer. */
  private async answerable(projectId: string, dashboard: DashboardYaml, leftOut: string[]): Promise<GeneratedContent> {
    let components: DashboardComponent[] = await this.deps.files.withIds(projectId, dashboard.components);
    for (let round = 0; round < LEAVE_OUT_ROUNDS; round++) {
      const problems = await this.deps.dashboards.collectionProblems(projectId, components);
      const broken = new Set(
        problems.flatMap((problem) => {
          const match = /components\[(\d+)\]/.exec(problem.path);
          return match ? [Number(match[1])] : [];
        }),
      );
      if (broken.size === 0) break;
      components = components.filter((component, index) => {
        if (broken.has(index)) leftOut.push(component.component_id);
        return !broken.has(index);
      });
    }
    const ids = new Set(components.map((component) => component.component_id));
    return generatedContentSchema.parse({
      title: dashboard.title,
      description: dashboard.description,
      tabs: dashboard.tabs,
      components,
      layout: dashboard.layout.filter((item) => ids.has(item.component_id)),
    });
  }

  /** Makes, updates or offers one dashboard (see the class's comment). */
  private async place(
    actor: UserActor,
    projectId: string,
    made: { key: string; templateId: string; content: GeneratedContent; dashboard: DashboardYaml },
  ): Promise<{ id: string; outcome: TemplateDashboards['items'][number]['outcome'] }> {
    const { db } = this.deps.database;
    const { key, content } = made;
    const next = fingerprintOf(content);
    const existing =
      (await dashboardRows.findGenerated(db, projectId, key)) ??
      (await dashboardRows.findUngeneratedByTitle(db, projectId, content.title));
    if (existing === undefined) {
      const { dashboard } = await this.deps.dashboards.createVersioned(actor, {
        project_id: projectId,
        ...content,
        ...(made.dashboard.colors === undefined ? {} : { colors: made.dashboard.colors }),
        is_public: false,
        template: 'empty',
      });
      await dashboardRows.setGenerated(db, dashboard.dashboard_id, {
        generated_from: key,
        generated_fingerprint: next,
      });
      return { id: dashboard.dashboard_id, outcome: 'created' };
    }
    const offered = existing.generated_offer === null ? null : fingerprintOf(JSON.parse(existing.generated_offer));
    const decision = generatedOutcome({
      generated: existing.generated_fingerprint,
      current: fingerprintOf(storedContent(existing)),
      offered,
      next,
    });
    if (decision.write === 'content') {
      await this.deps.dashboards.update(actor, existing.id, content);
      await dashboardRows.setGenerated(db, existing.id, {
        ...noOffer,
        generated_from: key,
        generated_fingerprint: next,
      });
    } else if (decision.write === 'offer') {
      await dashboardRows.setGenerated(db, existing.id, {
        generated_from: key,
        generated_offer: JSON.stringify(content),
        generated_offer_at: isoNow(),
        generated_offer_template: made.templateId,
      });
    } else if (decision.outcome === 'unchanged') {
      // It holds what this run makes: no offer is left waiting, and it counts as generated again.
      await dashboardRows.setGenerated(db, existing.id, {
        ...noOffer,
        generated_from: key,
        generated_fingerprint: next,
      });
    }
    return { id: existing.id, outcome: decision.outcome };
  }

  /** `GET /dashboards/{id}/generated` (editors). */
  async generated(actor: Actor, dashboardId: string): Promise<GeneratedVersion> {
    const { row } = (await this.deps.dashboards.access(actor, dashboardId, 'resource.edit')).record;
    const current = storedContent(row);
    const offer = row.generated_offer === null ? null : generatedContentSchema.parse(JSON.parse(row.generated_offer));
    const edited = row.generated_from !== null && row.generated_fingerprint !== fingerprintOf(current);
    return {
      dashboard_id: row.id,
      generated_from: row.generated_from,
      edited,
      offer:
        offer === null
          ? null
          : {
              ...offer,
              template_id: row.generated_offer_template ?? '',
              offered_at: row.generated_offer_at ?? row.updated_at,
              changes: summarizeChanges({ ...current, colors: [] }, { ...offer, colors: [] }),
            },
    };
  }

  /** Saves the offered version as the dashboard's newest revision (editors); it counts as generated again. */
  async applyOffer(actor: Actor, dashboardId: string): Promise<Versioned> {
    const { row } = (await this.deps.dashboards.access(actor, dashboardId, 'resource.edit')).record;
    if (row.generated_offer === null) throw noOfferError();
    const offer = generatedContentSchema.parse(JSON.parse(row.generated_offer));
    const saved = await this.deps.dashboards.update(actor, dashboardId, offer);
    await dashboardRows.setGenerated(this.deps.database.db, dashboardId, {
      ...noOffer,
      generated_fingerprint: fingerprintOf(offer),
    });
    return saved;
  }

  /** Drops the offer, the dashboard as it is (editors); a later run with other content offers again. */
  async dismissOffer(actor: Actor, dashboardId: string): Promise<void> {
    const { record } = await this.deps.dashboards.access(actor, dashboardId, 'resource.edit');
    if (record.row.generated_offer === null) throw noOfferError();
    await dashboardRows.setGenerated(this.deps.database.db, dashboardId, noOffer);
  }
}

const noOfferError = () => new DomainError('not_found', 'this dashboard has no generated version on offer');

const noOffer = { generated_offer: null, generated_offer_at: null, generated_offer_template: null };
