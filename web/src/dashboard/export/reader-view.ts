import { type DashboardComponent, previewAnswerSchema } from '@service/common';
import { readContigs } from '../filter-state.js';
import { parseOnce } from '../parse-once.js';
import { shownColumns } from '../table/ColumnsMenu.js';
import { readTableViews, tableViewQuery } from '../table/table-state.js';

/**
 * What the reader made of a component, as the export route and a table's download take it
 * (docs/export.md): a table's header filters and order (`?tables=`) and the columns it shows, in
 * order, when not the table's own; a coverage track's contig (`?contigs=`). Only the columns the
 * table has are sent (read from its answer, `data`): a link's stale names are no export's fault.
 */
export function readerViewQuery(
  component: DashboardComponent,
  data: unknown,
  params: URLSearchParams,
  components: readonly DashboardComponent[],
): Record<string, string> {
  const id = component.component_id;
  if (component.type === 'figure') {
    const contig = readContigs(params.get('contigs'), components)[id];
    return contig === undefined ? {} : { contig };
  }
  if (component.type !== 'table') return {};
  const view = readTableViews(params.get('tables'))[id] ?? {};
  const answer = parseOnce(previewAnswerSchema, data);
  const columns =
    view.columns === undefined || answer === undefined
      ? undefined
      : shownColumns(answer.columns, view.columns).map((column) => column.name);
  const own =
    answer !== undefined &&
    sameNames(
      columns,
      answer.columns.map((column) => column.name),
    );
  return { ...tableViewQuery(view), ...(columns === undefined || own ? {} : { columns: JSON.stringify(columns) }) };
}

function sameNames(names: readonly string[] | undefined, all: readonly string[]): boolean {
  return names !== undefined && names.length === all.length && names.every((name, index) => name === all[index]);
}
