import type { DashboardComponent } from '@service/common';
import { describe, expect, it } from 'vitest';
import {
  draftOf,
  type EditorState,
  editorReducer,
  firstFreeSlot,
  freshComponentId,
  HISTORY_LIMIT,
  initialEditorState,
  isUnsaved,
  keyboardMove,
  mostUsedCollection,
  normalizeLayout,
} from '../src/dashboard/edit/editor-state.js';

const text = (id: string): DashboardComponent => ({ component_id: id, type: 'text', markdown: `# ${id}` });
const card: DashboardComponent = { component_id: 'card-1', type: 'card', data_collection_id: 'dc', agg: 'count' };

function start(): EditorState {
  return initialEditorState(
    draftOf({
      title: 'Penguins',
      description: '',
      tabs: [],
      components: [text('intro'), text('notes')],
      layout: [{ component_id: 'intro', x: 0, y: 0, w: 12, h: 2 }],
    }),
  );
}

describe('the editor reducer', () => {
  it('gives every component a layout entry, the unplaced ones below the placed', () => {
    const state = start();
    expect(state.present.layout).toEqual([
      { component_id: 'intro', x: 0, y: 0, w: 12, h: 2 },
      { component_id: 'notes', x: 0, y: 2, w: 12, h: 2 },
    ]);
    expect(isUnsaved(state)).toBe(false);
  });

  it('adds a component below the others, and undo/redo walk the history', () => {
    let state = editorReducer(start(), { type: 'add', component: card });
    expect(state.present.layout.at(-1)).toEqual({ component_id: 'card-1', x: 0, y: 4, w: 3, h: 3 });
    expect(isUnsaved(state)).toBe(true);
    state = editorReducer(state, { type: 'remove', componentId: 'intro' });
    expect(state.present.components.map((component) => component.component_id)).toEqual(['notes', 'card-1']);
    state = editorReducer(state, { type: 'undo' });
    expect(state.present.components.map((component) => component.component_id)).toEqual(['intro', 'notes', 'card-1']);
    state = editorReducer(state, { type: 'undo' });
    expect(state.present.components).toHaveLength(2);
    expect(isUnsaved(state)).toBe(false);
    expect(editorReducer(state, { type: 'undo' })).toBe(state);
    state = editorReducer(state, { type: 'redo' });
    state = editorReducer(state, { type: 'redo' });
    expect(state.present.components.map((component) => component.component_id)).toEqual(['notes', 'card-1']);
    expect(editorReducer(state, { type: 'redo' })).toBe(state);
  });

  it('a new change after undo drops the redo stack; a no-op is no step', () => {
    let state = editorReducer(start(), { type: 'title', title: 'One' });
    state = editorReducer(state, { type: 'undo' });
    state = editorReducer(state, { type: 'title', title: 'Two' });
    expect(state.future).toEqual([]);
    expect(editorReducer(state, { type: 'title', title: 'Two' })).toBe(state);
    expect(editorReducer(state, { type: 'layout', layout: state.present.layout })).toBe(state);
  });

  it('moves and resizes through the layout, normalized into the grid', () => {
    let state = start();
    state = editorReducer(state, {
      type: 'layout',
      layout: [
        { component_id: 'intro', x: 10, y: 0, w: 6, h: 2 },
        { component_id: 'notes', x: 0, y: 0, w: 6, h: 3 },
        { component_id: 'ghost', x: 0, y: 9, w: 1, h: 1 },
      ],
    });
    expect(state.present.layout).toEqual([
      { component_id: 'notes', x: 0, y: 0, w: 6, h: 3 },
      { component_id: 'intro', x: 6, y: 0, w: 6, h: 2 },
    ]);
    state = editorReducer(state, { type: 'undo' });
    expect(state.present.layout[0]).toEqual({ component_id: 'intro', x: 0, y: 0, w: 12, h: 2 });
  });

  it('updates a component in place, a renamed one keeping its place', () => {
    let state = editorReducer(start(), { type: 'add', component: card });
    state = editorReducer(state, {
      type: 'update',
      componentId: 'card-1',
      component: { ...card, component_id: 'rows', title: 'Rows' },
    });
    expect(state.present.components.at(-1)).toMatchObject({ component_id: 'rows', title: 'Rows' });
    expect(state.present.layout.at(-1)?.component_id).toBe('rows');
  });

  it('saved keeps the history; reset clears it; the history is bounded', () => {
    let state = editorReducer(start(), { type: 'add', component: card });
    state = editorReducer(state, { type: 'saved', draft: state.present });
    expect(isUnsaved(state)).toBe(false);
    expect(state.past).toHaveLength(1);
    state = editorReducer(state, { type: 'reset', draft: start().present });
    expect(state.past).toEqual([]);
    for (let n = 0; n < HISTORY_LIMIT + 5; n += 1) state = editorReducer(state, { type: 'title', title: `t${n}` });
    expect(state.past).toHaveLength(HISTORY_LIMIT);
  });

  it('normalizes overlapping and out-of-grid entries and names fresh ids', () => {
    expect(
      normalizeLayout([
        { component_id: 'a', x: 0, y: 0, w: 20, h: 0 },
        { component_id: 'b', x: -3, y: 0, w: 4, h: 2 },
      ]),
    ).toEqual([
      { component_id: 'a', x: 0, y: 0, w: 12, h: 1 },
      { component_id: 'b', x: 0, y: 1, w: 4, h: 2 },
    ]);
    expect(freshComponentId({ components: [card, text('figure-1')] }, 'card')).toBe('card-2');
    expect(freshComponentId({ components: [card] }, 'figure')).toBe('figure-1');
  });

  it('moves with the arrow keys and resizes with Shift, within the grid', () => {
    const item = { component_id: 'a', x: 0, y: 0, w: 6, h: 2 };
    expect(keyboardMove(item, 'ArrowRight', false)).toEqual({ ...item, x: 1 });
    expect(keyboardMove(item, 'ArrowLeft', false)).toEqual(item);
    expect(keyboardMove(item, 'ArrowUp', false)).toEqual(item);
    expect(keyboardMove(item, 'ArrowDown', true)).toEqual({ ...item, h: 3 });
    expect(keyboardMove({ ...item, x: 6 }, 'ArrowRight', true)).toEqual({ ...item, x: 6 });
    expect(keyboardMove(item, 'ArrowLeft', true)).toEqual({ ...item, w: 5 });
    expect(keyboardMove(item, 'Enter', false)).toBeNull();
    // A component alone high up is compacted to the top.
    expect(normalizeLayout([{ component_id: 'b', x: 3, y: 9, w: 3, h: 2 }])).toEqual([
      { component_id: 'b', x: 3, y: 0, w: 3, h: 2 },
    ]);
  });
});

describe('where a new component goes and what it reads', () => {
  const box = (component_id: string, x: number, y: number, w: number, h: number) => ({ component_id, x, y, w, h });
  const items = [box('a', 0, 0, 6, 4), box('b', 6, 0, 6, 2), box('c', 0, 4, 12, 4), box('d', 0, 8, 4, 4)];

  it('takes the first free slot from the first row in view, left to right, else below everything', () => {
    // Beside b, under it: the first hole from the top.
    expect(firstFreeSlot(items, { w: 6, h: 2 }, 0)).toEqual({ x: 6, y: 2 });
    // Scrolled past the top rows: the hole beside d.
    expect(firstFreeSlot(items, { w: 6, h: 4 }, 5)).toEqual({ x: 4, y: 8 });
    // Too wide for any hole: below everything.
    expect(firstFreeSlot(items, { w: 12, h: 3 }, 0)).toEqual({ x: 0, y: 12 });
    expect(firstFreeSlot([], { w: 3, h: 3 }, 7)).toEqual({ x: 0, y: 0 });
  });

  it('adds a component into the slot in view, kept there', () => {
    const state = initialEditorState(
      draftOf({
        title: 'Grid',
        description: '',
        tabs: [],
        components: ['a', 'b', 'c', 'd'].map(text),
        layout: items,
      }),
    );
    const next = editorReducer(state, { type: 'add', component: card, fromRow: 5 });
    expect(next.present.layout.find((item) => item.component_id === 'card-1')).toEqual(box('card-1', 4, 8, 3, 3));
  });

  it('starts a new component on the collection the dashboard reads most, MultiQC plots apart', () => {
    const figure = (id: string, dc: string): DashboardComponent => ({
      component_id: id,
      type: 'figure',
      data_collection_id: dc,
      chart: 'bar',
    });
    const components = [
      figure('f1', 'samples'),
      figure('f2', 'counts'),
      figure('f3', 'counts'),
      { component_id: 'q', type: 'multiqc', data_collection_id: 'qc', plot: 'fastqc' } as DashboardComponent,
      text('t'),
    ];
    expect(mostUsedCollection(components, 'figure', 'first')).toBe('counts');
    expect(mostUsedCollection(components, 'multiqc', 'first')).toBe('qc');
    expect(mostUsedCollection([text('t')], 'card', 'first')).toBe('first');
  });
});
