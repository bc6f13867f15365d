/**
 * The analytics layer: everything computed from a table snapshot — the SQL foundations (`sql/`),
 * the filters that narrow rows (`filters/`), the dashboard components (`components/`) and the
 * whole-table queries of the collection routes (`table/`). It takes a snapshot and never checks
 * access: its callers (datacollections/, dashboards/data/) have authorized the request. Nothing
 * outside this folder imports anything but this file (server/test/architecture/import-graph.test.ts).
 */

export {
  averageLinkage,
  type Clustering,
  type DenseMatrix,
  transposed,
  zScores,
} from './components/clustering.js';
export { colorRanges, colorScaleProblems } from './components/color-ranges.js';
export { componentData, componentError, type DataComponent } from './components/components.js';
export { dataProblems } from './components/data-problems.js';
export {
  type AnalyticComponent,
  type ComputeOptions,
  EXACT_BOX_VALUES,
  EXACT_QUANTILE_ROWS,
  type FitProblem,
  fitProblems,
} from './components/fit.js';
export { galleryPage } from './components/gallery.js';
export { MAX_TREE_NODES, type ParsedTree, parseNewick, type TreeInput } from './components/newick.js';
export { onlyColumns, type PageQuery, page, readerColumns } from './components/paging.js';
export { scalarNeeds, sharedPass } from './components/shared-scalars.js';
export {
  columnFiltered,
  columnFilterMatches,
  selectByProblems,
  selectionCarry,
  selectionColumn,
  tableExtras,
} from './components/table-extras.js';
export { FilterPlan } from './filters/filter-plan.js';
export { collectionsBetween, type FilterJoin, MAX_CHAINS, shortestChains } from './filters/join-chains.js';
export { everyRow, type Narrowing } from './filters/narrowing.js';
export { describe, invalid, type TableSnapshot } from './sql/columns.js';
export { type SharedScalars, whereOf, withNarrowedRows } from './sql/narrowed.js';
export { TableReader, type TableReaderDeps } from './sql/reader.js';
export { Statement } from './sql/statement.js';
export { WholeTableMemo } from './sql/whole-table.js';
export { aggregate, distinctValues, summarize } from './table/aggregates.js';
export { type Download, download, narrowedCsv } from './table/download.js';
export { profile } from './table/profile.js';
export { tableVersions } from './table/versions.js';
