import {
  type DashboardComponent,
  dashboardComponentSchema,
  type LayoutItem,
  type OverviewCollection,
  overviewComponents,
} from '@service/common';
import type { DataCollectionQueries } from '../datacollections/queries.js';
import type { MultiqcService } from '../multiqc/service.js';
import type { Actor } from '../policy/actor.js';
import type { DashboardsRepository } from './repository.js';

/**
 * The components and layout of a project's generated overview (`template: "overview"`), from the
 * column statistics of each of its collections' tables, read as the actor (an editor of it).
 */
export async function projectOverview(
  deps: {
    repository: Pick<DashboardsRepository, 'collectionsOfProject'>;
    queries: Pick<DataCollectionQueries, 'summary'>;
    multiqc: Pick<MultiqcService, 'summary'>;
  },
  actor: Actor,
  project: { id: string; name: string; description: string },
): Promise<{ components: DashboardComponent[]; layout: LayoutItem[] }> {
  const collections: OverviewCollection[] = [];
  for (const { id, tag, type } of await deps.repository.collectionsOfProject(project.id)) {
    const summary = await deps.queries.summary(actor, id);
    const multiqc = type === 'multiqc' ? { multiqc: await deps.multiqc.summary(actor, id) } : {};
    collections.push({ data_collection_id: id, tag, summary: summary.version === null ? null : summary, ...multiqc });
  }
  const { components, layout } = overviewComponents(project, collections);
  // Through the shared schema, which fills the defaults a stored component carries.
  return { components: dashboardComponentSchema.array().parse(components), layout };
}
