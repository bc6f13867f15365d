import type { DashboardComponent } from '@service/common';
import { describe, expect, it } from 'vitest';
import { readJsonLines } from '../src/api/json-lines.js';
import { describeValue, filterChips, formatNumber } from '../src/dashboard/chips.js';
import {
  readAsOf,
  readContigs,
  readDashboardView,
  readFilters,
  withFilter,
  writeDashboardView,
} from '../src/dashboard/filter-state.js';
import { actionsOfAnswer, dataReducer, EMPTY_DATA } from '../src/dashboard/useDashboardData.js';
import {
  chosenValues,
  dateRangeFilter,
  optionKey,
  rangeFilter,
  selectItems,
  sliderStep,
  sliderValue,
} from '../src/dashboard/widget-values.js';

const dc = 'dc1';
const COMPONENTS: DashboardComponent[] = [
  {
    component_id: 'species',
    type: 'interactive',
    title: 'Species',
    data_collection_id: dc,
    widget: 'multiselect',
    column: 'species',
  },
  {
    component_id: 'mass',
    type: 'interactive',
    title: 'Body mass',
    data_collection_id: dc,
    widget: 'range',
    column: 'mass',
  },
  { component_id: 'sex', type: 'interactive', data_collection_id: dc, widget: 'switch', column: 'male' },
  { component_id: 'name', type: 'interactive', data_collection_id: dc, widget: 'search', column: 'name' },
  { component_id: 'bars', type: 'figure', data_collection_id: dc, chart: 'bar', x: 'island' },
  { component_id: 'hist', type: 'figure', title: 'Flipper', data_collection_id: dc, chart: 'histogram', x: 'flipper' },
  { component_id: 'box', type: 'figure', data_collection_id: dc, chart: 'box', y: 'mass' },
  { component_id: 'card', type: 'card', data_collection_id: dc, agg: 'count' },
];

describe('dashboard filters in the address bar', () => {
  it('keeps the filters that fit the dashboard and drops the rest instead of failing the page', () => {
    const text = JSON.stringify([
      { component_id: 'species', value: ['Adelie', 'Gentoo'] },
      { component_id: 'gone', value: ['x'] }, // no such component any more
      { component_id: 'mass', value: 'heavy' }, // a range is [low, high]
      { component_id: 'box', value: [1, 2] }, // a box plot filters nothing
      { component_id: 'card', value: true }, // nor does a card
      { component_id: 'sex', value: true },
      { component_id: 'species', value: ['Chinstrap'] }, // a second entry for the same component
      { component_id: 'name', value: '' }, // filters nothing
      { component_id: 'hist', value: [170, null] },
      { value: ['no id'] },
      'junk',
    ]);
    expect(readFilters(text, COMPONENTS)).toEqual([
      { component_id: 'species', value: ['Adelie', 'Gentoo'] },
      { component_id: 'sex', value: true },
      { component_id: 'hist', value: [170, null] },
    ]);
    expect(readFilters('not json', COMPONENTS)).toEqual([]);
    expect(readFilters('{"component_id":"sex","value":true}', COMPONENTS)).toEqual([]);
    expect(readFilters(null, COMPONENTS)).toEqual([]);
  });

  it('reads as_of as a timestamp or versions by collection, and anything else as live', () => {
    expect(readAsOf('2026-11-24T17:05:00.000Z')).toBe('2026-11-24T17:05:00.000Z');
    expect(readAsOf('{"dc1":3}')).toEqual({ dc1: 3 });
    expect(readAsOf('yesterday')).toBeNull();
    expect(readAsOf('{"dc1":-1}')).toBeNull();
    expect(readAsOf('{broken')).toBeNull();
    expect(readAsOf(null)).toBeNull();
  });

  it('writes the view back next to the other parameters, and reads it again unchanged', () => {
    const view = {
      filters: [
        { component_id: 'mass', value: [3000, 4500] },
        { component_id: 'name', value: 'bis' },
      ],
      asOf: { dc1: 2 },
      contigs: {},
    };
    const params = writeDashboardView(new URLSearchParams('tab=x&filters=old'), view);
    expect(params.get('tab')).toBe('x');
    expect(readDashboardView(new URLSearchParams(params.toString()), COMPONENTS)).toEqual(view);
    const cleared = writeDashboardView(params, { filters: [], asOf: null, contigs: {} });
    expect(cleared.toString()).toBe('tab=x');
  });

  it('keeps a reader’s contigs of coverage tracks of contigs, and drops the others', () => {
    const track = { type: 'figure', data_collection_id: dc, chart: 'coverage', position: 'pos', y: 'depth' } as const;
    const components: DashboardComponent[] = [
      ...COMPONENTS,
      { ...track, component_id: 'cov', chromosome: 'contig' },
      { ...track, component_id: 'flat' },
    ];
    const text = JSON.stringify({ cov: 'chr2', flat: '1', species: '1', gone: '1' });
    expect(readContigs(text, components)).toEqual({ cov: 'chr2' });
    expect(readContigs(JSON.stringify({ cov: ' ' }), components)).toEqual({});
    expect(readContigs(JSON.stringify({ cov: 2 }), components)).toEqual({});
    expect(readContigs('["cov"]', components)).toEqual({});
    expect(readContigs('{not json', components)).toEqual({});
    expect(readContigs(null, components)).toEqual({});
    const view = { filters: [], asOf: null, contigs: { cov: '2' } };
    const params = writeDashboardView(new URLSearchParams('tab=x'), view);
    expect(params.get('contigs')).toBe('{"cov":"2"}');
    expect(readDashboardView(params, components)).toEqual(view);
    expect(writeDashboardView(params, { ...view, contigs: {} }).toString()).toBe('tab=x');
  });

  it('sets a filter in its place, appends a new one, and removes one set to nothing', () => {
    const filters = [
      { component_id: 'species', value: ['Adelie'] },
      { component_id: 'sex', value: true },
    ];
    expect(withFilter(filters, 'species', ['Gentoo'])).toEqual([
      { component_id: 'species', value: ['Gentoo'] },
      { component_id: 'sex', value: true },
    ]);
    expect(withFilter(filters, 'mass', [1, null])).toEqual([...filters, { component_id: 'mass', value: [1, null] }]);
    expect(withFilter(filters, 'species', [])).toEqual([{ component_id: 'sex', value: true }]);
    expect(withFilter(filters, 'sex', null)).toEqual([{ component_id: 'species', value: ['Adelie'] }]);
    expect(withFilter(filters, 'mass', [null, null])).toEqual(filters);
  });
});

describe('filter chips', () => {
  it('name the component and say its value in words', () => {
    expect(
      filterChips(
        [
          { component_id: 'species', value: ['Adelie', 'Gentoo'] },
          { component_id: 'mass', value: [3000, 4500] },
          { component_id: 'sex', value: true },
          { component_id: 'name', value: 'bis' },
          { component_id: 'bars', value: ['Dream', null, 'Biscoe', 'Torgersen', 'Other'] },
          { component_id: 'hist', value: [170.25, null] },
          { component_id: 'gone', value: true },
        ],
        COMPONENTS,
      ).map((chip) => chip.text),
    ).toEqual([
      'Species: Adelie, Gentoo',
      'Body mass: 3,000–4,500',
      'male: yes',
      'name: “bis”',
      'island: Dream, (empty), Biscoe and 2 more',
      'Flipper: ≥ 170',
    ]);
    const mass = COMPONENTS[1] as DashboardComponent;
    expect(describeValue(mass, [null, 4500.5])).toBe('≤ 4,501');
    expect(formatNumber(0.012345)).toBe('0.0123');
    expect(formatNumber(-1234567)).toBe('-1,234,567');
  });
});

describe('widget values', () => {
  it('keys options by their JSON, so 1, "1" and null stay apart, and lists chosen values missing from the answer', () => {
    const items = selectItems(
      [
        { value: 1, count: 5 },
        { value: '1', count: 2 },
        { value: null, count: 1 },
      ],
      ['gone', 1],
    );
    expect(items).toEqual([
      { value: '"gone"', label: 'gone', count: null },
      { value: '1', label: '1', count: 5 },
      { value: '"1"', label: '1', count: 2 },
      { value: 'null', label: '(empty)', count: 1 },
    ]);
    expect(chosenValues(items.map((item) => item.value))).toEqual(['gone', 1, '1', null]);
    expect(optionKey(undefined)).toBe('null');
  });

  it('maps slider thumbs to a range filter whose ends at the bounds stay open', () => {
    const bounds = { min: 2700, max: 6300 };
    expect(rangeFilter([3000, 4500], bounds)).toEqual([3000, 4500]);
    expect(rangeFilter([2700, 4500], bounds)).toEqual([null, 4500]);
    expect(rangeFilter([3000, 6300], bounds)).toEqual([3000, null]);
    expect(rangeFilter([2700, 6300], bounds)).toBeNull();
    expect(sliderValue([null, 4500], bounds)).toEqual([2700, 4500]);
    expect(sliderValue(undefined, bounds)).toEqual([2700, 6300]);
    expect(sliderValue('x', bounds)).toEqual([2700, 6300]);
  });

  it('steps whole numbers through an integer column and about a hundredth of a span of decimals', () => {
    expect(sliderStep({ min: 2700, max: 6300 })).toBe(1);
    expect(sliderStep({ min: 32.1, max: 59.6 })).toBe(0.1);
    expect(sliderStep({ min: 0, max: 1 })).toBe(0.01);
    expect(sliderStep({ min: 5, max: 5 })).toBe(1);
  });

  it('leaves an empty date input open', () => {
    expect(dateRangeFilter('2026-01-01', '')).toEqual(['2026-01-01', null]);
    expect(dateRangeFilter('', '')).toBeNull();
  });
});

describe("the data route's answer", () => {
  function body(chunks: string[]): ReadableStream<Uint8Array> {
    const bytes = new TextEncoder();
    return new ReadableStream({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(bytes.encode(chunk));
        controller.close();
      },
    });
  }

  it('reads JSON lines split anywhere across chunks, multi-byte characters included', async () => {
    const values: unknown[] = [];
    const text =
      '{"version":{"dc1":3}}\n\n{"component_id":"c","data":{"value":"Zürich","unfiltered_value":2}}\n{"a":1}';
    const cut = text.indexOf('ü') + 1; // inside the two bytes of ü
    const encoded = new TextEncoder().encode(text);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoded.slice(0, cut));
        controller.enqueue(encoded.slice(cut));
        controller.close();
      },
    });
    await readJsonLines(stream, (value) => values.push(value));
    expect(values).toEqual([
      { version: { dc1: 3 } },
      { component_id: 'c', data: { value: 'Zürich', unfiltered_value: 2 } },
      { a: 1 },
    ]);
    await expect(readJsonLines(body(['{"a":1}\n{oops\n']), () => {})).rejects.toBeInstanceOf(SyntaxError);
  });

  it('keeps the previous drawing of each component until its new line arrives', () => {
    let state = dataReducer(EMPTY_DATA, { type: 'start', ids: ['a', 'b'] });
    for (const action of actionsOfAnswer({
      version: { dc1: 1 },
      components: { a: { value: 1, unfiltered_value: 1 }, b: { value: 2, unfiltered_value: 2 } },
    })) {
      state = dataReducer(state, action);
    }
    state = dataReducer(state, { type: 'done', ids: ['a', 'b'] });
    expect(state.version).toEqual({ dc1: 1 });
    // New filters: both wait, both still show their old numbers; a's line arrives first.
    state = dataReducer(state, { type: 'start', ids: ['a', 'b'] });
    for (const action of actionsOfAnswer({ component_id: 'a', data: { value: 10, unfiltered_value: 1 } })) {
      state = dataReducer(state, action);
    }
    expect([...state.waiting]).toEqual(['b']);
    expect(state.components.get('a')).toEqual({ value: 10, unfiltered_value: 1 });
    expect(state.components.get('b')).toEqual({ value: 2, unfiltered_value: 2 });
    // The end of a request for a alone (b out of sight, not asked yet): b still waits.
    state = dataReducer(state, { type: 'done', ids: ['a'] });
    expect([...state.waiting]).toEqual(['b']);
    // A failed request leaves nothing stale on screen.
    state = dataReducer(state, { type: 'failed', error: new Error('x') });
    expect(state.components.size).toBe(0);
    expect(() => actionsOfAnswer({ nonsense: true })).toThrow(/unexpected shape/);
  });

  it("leaves each component's data unread for its cell to narrow, line by line or whole", () => {
    // Read against every shape of a component's answer, a 20,000-row figure cost ~50 ms a line.
    const figure = { columns: [], rows: [[1, 2]], sampled: false, total_rows: 1 };
    const [line] = actionsOfAnswer({ component_id: 'f', data: figure });
    expect(line).toEqual({ type: 'component', id: 'f', data: figure });
    expect(line?.type === 'component' && line.data).toBe(figure);
    const whole = actionsOfAnswer({ version: {}, components: { f: figure } });
    expect(whole[1]?.type === 'component' && whole[1].data).toBe(figure);
    expect(() => actionsOfAnswer({ component_id: 7, data: figure })).toThrow(/unexpected shape/);
  });
});
