import { type DashboardComponent, extendColors, type FigureAnswer, figureDataSchema } from '@service/common';
import type { Actor } from '../policy/actor.js';
import type { DashboardDataService, FailureReport } from './data/service.js';
import type { DashboardRecord } from './repository.js';
import { colorsOf, componentsOf, type DashboardsService } from './service.js';

/** Readers extending the palette at once: each try re-reads what the last one stored. */
const STORE_ATTEMPTS = 3;

/**
 * A dashboard's palette (docs/dashboards.md "Colours"): the stored values, then those its figures'
 * unfiltered answers show and it lacks, in order of first appearance, stored as they are first
 * seen. A value never moves once stored, whatever the filters, the reader or the export.
 */
export class DashboardColors {
  constructor(
    private readonly dashboards: Pick<DashboardsService, 'access' | 'repository'>,
    private readonly data: Pick<DashboardDataService, 'prepareRead' | 'answer'>,
  ) {}

  /** `GET /dashboards/{id}/colors`, for the dashboard's readers. */
  async of(actor: Actor, dashboardId: string, report: FailureReport): Promise<string[]> {
    const { record } = await this.dashboards.access(actor, dashboardId, 'resource.read');
    return this.assign(record, report);
  }

  /**
   * The palette of a dashboard whose reading the caller has authorized. Computed from the latest
   * unfiltered answers (the answer cache usually has them), whatever the caller's filters or
   * embed token: only the values a chart draws ever reach it.
   */
  async assign(record: DashboardRecord, report: FailureReport): Promise<string[]> {
    const figures = componentsOf(record).filter((component) => component.type === 'figure');
    if (figures.length === 0) return colorsOf(record);
    const answers = await this.answers(record, figures, report);
    let current = record;
    for (let attempt = 1; ; attempt++) {
      const stored = colorsOf(current);
      const colors = extendColors(stored, answers);
      if (colors.length === stored.length || attempt > STORE_ATTEMPTS) return colors;
      const { repository } = this.dashboards;
      if (await repository.replaceColors(current.row.id, current.row.colors, JSON.stringify(colors))) return colors;
      const reread = await repository.find(current.row.id);
      if (reread === undefined) return colors;
      current = reread;
    }
  }

  private async answers(
    record: DashboardRecord,
    figures: readonly DashboardComponent[],
    report: FailureReport,
  ): Promise<FigureAnswer[]> {
    const ids = figures.map((figure) => figure.component_id);
    const answer = await this.data.answer(
      await this.data.prepareRead(record, { filters: [], components: ids }, report),
    );
    return figures.flatMap((component) => {
      if (component.type !== 'figure') return [];
      const data = figureDataSchema.safeParse(answer.components[component.component_id]);
      return data.success ? [{ component, data: data.data }] : [];
    });
  }
}
