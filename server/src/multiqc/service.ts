import {
  type ComponentError,
  GENERAL_STATS_PLOT,
  MULTIQC_SAMPLE_COLUMN,
  type MultiqcComponent,
  type MultiqcData,
  type MultiqcPlot,
  type MultiqcSummary,
} from '@service/common';
import { componentError, type Narrowing } from '../analytics/index.js';
import type { DataCollectionQueries, TableSnapshot } from '../datacollections/queries.js';
import type { DataCollectionsService } from '../datacollections/service.js';
import { DomainError } from '../errors.js';
import type { Actor } from '../policy/actor.js';
import { mergePlotData } from './merge.js';
import { moduleOfPlot, modulesOf } from './modules.js';
import { datasetLabels, drawnAs, plotData, plotTitle, type SampleFilter } from './plots.js';
import { type MultiqcReports, parsedPlot, type Report } from './reports.js';

/**
 * MultiQC collections (docs/data.md, "MultiQC reports"): what their reports hold
 * (`GET /datacollections/{id}/multiqc`) and a plot's data for a dashboard component, narrowed to
 * the samples the dashboard's filters leave.
 */
export class MultiqcService {
  constructor(
    private readonly deps: {
      dataCollections: Pick<DataCollectionsService, 'access'>;
      queries: Pick<DataCollectionQueries, 'snapshotOf' | 'narrowedValuesByRun'>;
      reports: Pick<MultiqcReports, 'of'>;
    },
  ) {}

  /** The reports, modules, samples and plots of a MultiQC collection's table version (its readers). */
  async summary(actor: Actor, dataCollectionId: string, version?: number): Promise<MultiqcSummary> {
    const { row } = await this.deps.dataCollections.access(actor, dataCollectionId, 'resource.read');
    if (row.type !== 'multiqc') {
      throw new DomainError('not_found', 'the data collection is a table, not a MultiQC collection');
    }
    const source = await this.deps.queries.snapshotOf(row, version);
    const reports = await this.deps.reports.of(source.snapshot);
    const modules = uniqueBy(
      reports.flatMap((report) => modulesOf(report.metadata.modules)),
      (m) => m.anchor,
    );
    const plots = uniqueBy(
      reports.flatMap((report) => plotsOf(report, modules)),
      (plot) => plot.anchor,
    );
    const samples = new Set<string>();
    for (const report of reports) {
      for (const plot of report.plots.values()) {
        const data = plotData(plot.plotType, parsedPlot(plot), plot.anchor, {
          dataset: 0,
          percentages: false,
          shown: () => true,
        });
        for (const sample of data.samples) samples.add(sample);
      }
    }
    return {
      version: source.snapshot?.version ?? null,
      reports: reports.map((report) => ({
        run_id: report.file.run_id,
        multiqc_version: report.metadata.multiqcVersion,
        creation_date: report.metadata.creationDate,
      })),
      modules,
      samples: [...samples].sort(),
      plots,
    };
  }

  /** A MultiQC component's data over a snapshot of its collection (authorized by the dashboard). */
  async componentData(
    source: TableSnapshot,
    component: MultiqcComponent,
    narrowing: Narrowing,
  ): Promise<MultiqcData | ComponentError> {
    if (source.row.type !== 'multiqc') {
      return componentError(
        'not_multiqc',
        'the component reads a table collection, not a MultiQC one',
        'data_collection_id',
      );
    }
    const reports = await this.deps.reports.of(source.snapshot);
    const holding = reports.filter((report) => report.plots.has(component.plot));
    if (holding.length === 0) {
      if (reports.length === 0) return emptyPlot(component);
      return componentError('unknown_plot', `no report of this collection has a plot ${component.plot}`, 'plot');
    }
    const allowed = await this.deps.queries.narrowedValuesByRun(source, MULTIQC_SAMPLE_COLUMN, narrowing);
    const parts = holding.map((report) => {
      const plot = report.plots.get(component.plot);
      if (plot === undefined) throw new Error('unreachable: the report holds the plot');
      const shown = allowed === null ? () => true : sampleFilter(allowed.get(report.file.run_id) ?? new Set());
      const options = { dataset: component.dataset ?? 0, percentages: component.percentages ?? false, shown };
      return { data: plotData(plot.plotType, parsedPlot(plot), plot.anchor, options), runTag: report.file.run_tag };
    });
    return mergePlotData(parts) ?? emptyPlot(component);
  }
}

/**
 * Whether a plot's sample is among those the filters leave: its own name, or the name it extends
 * by a read or lane suffix (`SRR1_1`, `SRR1.R2`, `SRR1-L001` go with `SRR1`), since MultiQC names
 * a paired run's reads apart while sample sheets and metadata name the sample once.
 */
export function sampleFilter(allowed: ReadonlySet<string>): SampleFilter {
  return (sample) => {
    if (allowed.has(sample)) return true;
    for (let index = sample.length - 1; index > 0; index--) {
      if ('_.- '.includes(sample[index] ?? '') && allowed.has(sample.slice(0, index))) return true;
    }
    return false;
  };
}

function plotsOf(report: Report, modules: readonly { anchor: string; name: string }[]): MultiqcPlot[] {
  return [...report.plots.values()].map((plot) => {
    const input = parsedPlot(plot);
    return {
      anchor: plot.anchor,
      title: plotTitle(input, plot.anchor),
      plot_type: drawnAs(plot.plotType, input),
      module:
        plot.anchor === GENERAL_STATS_PLOT
          ? 'general_stats'
          : moduleOfPlot(report.metadata.modules, plot.anchor, modules),
      datasets: datasetLabels(input),
    };
  });
}

function emptyPlot(component: MultiqcComponent): MultiqcData {
  const common = {
    title: component.title ?? component.plot,
    samples: [],
    hidden_samples: 0,
    x_label: null,
    y_label: null,
  };
  return { plot_type: 'table', ...common, columns: [], rows: [] };
}

function uniqueBy<T>(items: readonly T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const id = key(item);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}
