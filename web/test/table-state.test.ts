import type { DashboardComponent, TableColumn, TableColumnFilter } from '@service/common';
import { describe, expect, it } from 'vitest';
import { filterChips } from '../src/dashboard/chips.js';
import { changeDashboardView, withFilter } from '../src/dashboard/filter-state.js';
import { describeColumnFilter, filterForm, formFilter } from '../src/dashboard/table/ColumnFilter.js';
import { shownColumns } from '../src/dashboard/table/ColumnsMenu.js';
import {
  readTableViews,
  settledView,
  tableViewQuery,
  withColumnFilter,
  withPagesReset,
  writeTableView,
} from '../src/dashboard/table/table-state.js';

const column = (name: string, type: string): TableColumn => ({ name, type, nullable: true, description: null });

describe('a table view in the address bar', () => {
  it('writes one table beside the others and the other parameters, and reads it back', () => {
    let params = new URLSearchParams('filters=%5B%5D&tab=t1');
    params = writeTableView(params, 'a', { column_filters: [{ column: 'species', op: 'in', value: ['Gentoo'] }] });
    params = writeTableView(params, 'b', { sort: [{ column: 'mass', direction: 'desc' }], columns: ['mass'] });
    expect(params.get('tab')).toBe('t1');
    expect(readTableViews(params.get('tables'))).toEqual({
      a: { column_filters: [{ column: 'species', op: 'in', value: ['Gentoo'] }] },
      b: { sort: [{ column: 'mass', direction: 'desc' }], columns: ['mass'] },
    });
    // An empty view leaves the address bar; the last one takes `tables` with it.
    params = writeTableView(params, 'a', { column_filters: [] });
    params = writeTableView(params, 'b', {});
    expect(params.has('tables')).toBe(false);
  });

  it('drops what does not parse and keeps the rest', () => {
    expect(readTableViews('not json')).toEqual({});
    expect(readTableViews('[1]')).toEqual({});
    const text = JSON.stringify({
      a: { column_filters: [{ column: 'x', op: 'near', value: 1 }], sort: [{ column: 'x', direction: 'asc' }] },
      b: 'nonsense',
    });
    expect(readTableViews(text)).toEqual({ a: { sort: [{ column: 'x', direction: 'asc' }] } });
  });

  it('sets, replaces and removes a column filter, and queries the routes with it', () => {
    let view = withColumnFilter({}, 'name', { column: 'name', op: 'contains', value: 'ad' });
    view = withColumnFilter(view, 'mass', { column: 'mass', op: 'between', value: [1, null] });
    view = withColumnFilter(view, 'name', { column: 'name', op: 'contains', value: 'gen' });
    expect(view.column_filters?.map((filter) => filter.column)).toEqual(['name', 'mass']);
    expect(tableViewQuery({ ...view, sort: [{ column: 'mass', direction: 'desc' }] })).toEqual({
      column_filters: JSON.stringify(view.column_filters),
      sort: 'mass:desc',
    });
    expect(tableViewQuery(withColumnFilter(withColumnFilter(view, 'name', null), 'mass', null))).toEqual({});
  });
});

describe("a table's page in the address bar", () => {
  const tables = (params: URLSearchParams) => readTableViews(params.get('tables'));
  const gentoo: TableColumnFilter = { column: 'species', op: 'in', value: ['Gentoo'] };

  it('is kept past the first, and starts again when the filters or the order change, not the columns', () => {
    let params = writeTableView(new URLSearchParams(), 'a', { page: 3 });
    expect(params.get('tables')).toBe('{"a":{"page":3}}');
    params = writeTableView(params, 'a', { page: 3, columns: ['mass'] });
    expect(tables(params).a).toEqual({ columns: ['mass'], page: 3 });
    params = writeTableView(params, 'a', { page: 3, columns: ['mass'], column_filters: [gentoo] });
    expect(tables(params).a).toEqual({ columns: ['mass'], column_filters: [gentoo] });
    params = writeTableView(params, 'a', { ...tables(params).a, page: 2 });
    params = writeTableView(params, 'a', { ...tables(params).a, sort: [{ column: 'mass', direction: 'desc' }] });
    expect(tables(params).a?.page).toBeUndefined();
    expect(tables(writeTableView(new URLSearchParams(), 'a', { page: 1 }))).toEqual({});
    expect(readTableViews('{"a":{"page":0},"b":{"page":2.5},"c":{"page":4}}')).toEqual({
      a: {},
      b: {},
      c: { page: 4 },
    });
    expect(settledView({}, { page: 2 })).toEqual({ page: 2 });
    expect(settledView({}, { page: 2, column_filters: [gentoo] })).toEqual({ column_filters: [gentoo] });
  });

  it("starts again when the dashboard's filters or version narrow the table otherwise, not for its own selection", () => {
    const components: DashboardComponent[] = [
      { component_id: 'a', type: 'table', data_collection_id: 'dc', page_size: 5, sort: [], select_by: 'sample' },
      { component_id: 'b', type: 'table', data_collection_id: 'dc', page_size: 5, sort: [], select_by: 'sample' },
    ];
    let params = writeTableView(writeTableView(new URLSearchParams('tab=t1'), 'a', { page: 3 }), 'b', { page: 2 });
    // Rows of a selected in a: b's rows change, a's do not.
    params = changeDashboardView(params, components, (view) => ({
      ...view,
      filters: withFilter(view.filters, 'a', ['P1']),
    }));
    expect(tables(params)).toEqual({ a: { page: 3 } });
    expect(params.get('tab')).toBe('t1');
    params = changeDashboardView(params, components, (view) => ({ ...view, asOf: '2026-01-01T00:00:00Z' }));
    expect(params.has('tables')).toBe(false);
    // Nothing changed: nothing is reset.
    params = writeTableView(params, 'b', { page: 2, columns: ['mass'] });
    params = changeDashboardView(params, components, (view) => view);
    expect(tables(params)).toEqual({ b: { columns: ['mass'], page: 2 } });
    expect(withPagesReset(params, () => true).get('tables')).toBe('{"b":{"columns":["mass"]}}');
  });
});

describe('a column filter', () => {
  it('is a value list for few values, contains for other text, a range for numbers and times', () => {
    expect(filterForm(column('species', 'string'), ['Adelie', null])).toBe('list');
    expect(filterForm(column('flag', 'boolean'), [true, false])).toBe('list');
    expect(filterForm(column('name', 'string'), undefined)).toBe('contains');
    expect(filterForm(column('mass', 'long'), undefined)).toBe('range');
    expect(filterForm(column('day', 'date'), undefined)).toBe('range');
    expect(filterForm(column('blob', 'binary'), undefined)).toBeNull();
  });

  it('comes from the form, or is none when the form filters nothing', () => {
    const fields = { text: '', low: '', high: '', kept: [], numeric: true };
    expect(formFilter('name', 'contains', { ...fields, text: '  ad ' })).toEqual({
      column: 'name',
      op: 'contains',
      value: 'ad',
    });
    expect(formFilter('name', 'contains', fields)).toBeNull();
    expect(formFilter('mass', 'range', { ...fields, low: '3500' })).toEqual({
      column: 'mass',
      op: 'between',
      value: [3500, null],
    });
    expect(formFilter('day', 'range', { ...fields, high: '2026-01-31', numeric: false })).toEqual({
      column: 'day',
      op: 'between',
      value: [null, '2026-01-31'],
    });
    expect(formFilter('mass', 'range', fields)).toBeNull();
    expect(formFilter('species', 'list', { ...fields, kept: ['Gentoo', null] })).toEqual({
      column: 'species',
      op: 'in',
      value: ['Gentoo', null],
    });
    expect(describeColumnFilter({ column: 'mass', op: 'between', value: [3500, 4500] })).toBe('mass 3,500–4,500');
    expect(describeColumnFilter({ column: 's', op: 'in', value: ['a', 'b', 'c', 'd'] })).toBe('s: a, b, c and 1 more');
  });
});

describe("a reader's columns", () => {
  const all = [column('sample', 'string'), column('species', 'string'), column('mass', 'long')];
  it('are the chosen ones in their order, or the table’s own', () => {
    expect(shownColumns(all, ['mass', 'sample', 'gone']).map((each) => each.name)).toEqual(['mass', 'sample']);
    expect(shownColumns(all, undefined)).toEqual(all);
    expect(shownColumns(all, ['gone'])).toEqual(all);
  });
});

describe("a table selection's chip", () => {
  it('names the selection column and the selected keys', () => {
    const table: DashboardComponent = {
      component_id: 'rows',
      type: 'table',
      title: 'Penguins',
      data_collection_id: 'dc',
      page_size: 25,
      sort: [],
      select_by: 'sample',
    };
    const chips = filterChips([{ component_id: 'rows', value: ['P8', 'P11'] }], [table]);
    expect(chips).toEqual([{ componentId: 'rows', text: 'sample = P8 or P11' }]);
    const { select_by: _, ...byKey } = table;
    expect(filterChips([{ component_id: 'rows', value: ['P8'] }], [byKey])[0]?.text).toBe('Penguins: P8');
  });
});
