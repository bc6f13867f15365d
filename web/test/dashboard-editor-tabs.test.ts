import type { DashboardComponent } from '@service/common';
import { describe, expect, it } from 'vitest';
import { draftOf, type EditorState, editorReducer, initialEditorState } from '../src/dashboard/edit/editor-state.js';
import { newTabId } from '../src/dashboard/edit/editor-tabs.js';

/** Edit mode's tabs (editor-tabs.ts): each tab its own grid, components named to their tab. */
const text = (id: string, tab?: string): DashboardComponent => ({
  component_id: id,
  type: 'text',
  markdown: id,
  ...(tab === undefined ? {} : { tab_id: tab }),
});
const ids = (state: EditorState, tab: string | undefined) =>
  state.present.components.filter((component) => component.tab_id === tab).map((component) => component.component_id);
const place = (state: EditorState, id: string) => state.present.layout.find((item) => item.component_id === id);

function untabbed(): EditorState {
  return initialEditorState(
    draftOf({
      title: 'T',
      description: '',
      tabs: [],
      components: [text('a'), text('b')],
      layout: [
        { component_id: 'a', x: 0, y: 0, w: 6, h: 2 },
        { component_id: 'b', x: 6, y: 0, w: 6, h: 2 },
      ],
    }),
  );
}

function tabbed(): EditorState {
  return initialEditorState(
    draftOf({
      title: 'T',
      description: '',
      tabs: [
        { tab_id: 'one', title: 'One' },
        { tab_id: 'two', title: 'Two' },
      ],
      // `a` relies on "absent = the first tab"; `c` shares a's cells on its own tab's grid.
      components: [text('a'), text('b', 'one'), text('c', 'two')],
      layout: [
        { component_id: 'a', x: 0, y: 0, w: 6, h: 2 },
        { component_id: 'b', x: 6, y: 0, w: 6, h: 2 },
        { component_id: 'c', x: 0, y: 0, w: 6, h: 2 },
      ],
    }),
  );
}

describe('tabs in edit mode', () => {
  it('names every component its tab and keeps one grid per tab', () => {
    const state = tabbed();
    expect(ids(state, 'one')).toEqual(['a', 'b']);
    expect(ids(state, 'two')).toEqual(['c']);
    // The same cells on two tabs are no overlap: nothing was pushed down.
    expect(place(state, 'c')).toEqual({ component_id: 'c', x: 0, y: 0, w: 6, h: 2 });
  });

  it('the first tab added keeps what the dashboard had in a tab of its own', () => {
    expect(newTabId([])).toBe('tab-2');
    const state = editorReducer(untabbed(), { type: 'tabs', change: { op: 'add', tabId: 'tab-2', title: 'More' } });
    expect(state.present.tabs).toEqual([
      { tab_id: 'tab-1', title: 'Tab 1' },
      { tab_id: 'tab-2', title: 'More' },
    ]);
    expect(ids(state, 'tab-1')).toEqual(['a', 'b']);
    expect(newTabId(state.present.tabs)).toBe('tab-3');
    // Undo takes the tabs away again.
    expect(editorReducer(state, { type: 'undo' }).present.tabs).toEqual([]);
  });

  it("adds a component to the open tab, in that tab's first free slot", () => {
    const card: DashboardComponent = { component_id: 'n', type: 'card', data_collection_id: 'dc', agg: 'count' };
    const state = editorReducer(tabbed(), { type: 'add', component: card, tabId: 'two' });
    expect(state.present.components.at(-1)?.tab_id).toBe('two');
    // Beside c on its tab's grid; the first tab's row, full with a and b, does not count.
    expect(place(state, 'n')).toEqual({ component_id: 'n', x: 6, y: 0, w: 3, h: 3 });
  });

  it("replaces only the open tab's layout", () => {
    const state = editorReducer(tabbed(), {
      type: 'layout',
      tabId: 'two',
      layout: [{ component_id: 'c', x: 6, y: 0, w: 6, h: 4 }],
    });
    expect(place(state, 'c')).toEqual({ component_id: 'c', x: 6, y: 0, w: 6, h: 4 });
    expect(place(state, 'a')).toEqual({ component_id: 'a', x: 0, y: 0, w: 6, h: 2 });
  });

  it('renames and reorders tabs; components stay in theirs', () => {
    let state = editorReducer(tabbed(), { type: 'tabs', change: { op: 'rename', tabId: 'two', title: 'Second' } });
    state = editorReducer(state, { type: 'tabs', change: { op: 'move', tabId: 'two', by: -1 } });
    expect(state.present.tabs.map((tab) => tab.title)).toEqual(['Second', 'One']);
    expect(ids(state, 'one')).toEqual(['a', 'b']);
    // Moving past either end changes nothing.
    expect(editorReducer(state, { type: 'tabs', change: { op: 'move', tabId: 'two', by: -1 } })).toBe(state);
  });

  it("sets and clears a tab's icon, keeping its title", () => {
    let state = editorReducer(tabbed(), { type: 'tabs', change: { op: 'icon', tabId: 'two', icon: 'microscope' } });
    expect(state.present.tabs.find((tab) => tab.tab_id === 'two')).toMatchObject({ title: 'Two', icon: 'microscope' });
    state = editorReducer(state, { type: 'tabs', change: { op: 'icon', tabId: 'two', icon: null } });
    expect(state.present.tabs.find((tab) => tab.tab_id === 'two')).not.toHaveProperty('icon');
    expect(state.present.tabs.find((tab) => tab.tab_id === 'one')).not.toHaveProperty('icon');
  });

  it("moves a component to another tab, below that tab's components", () => {
    const state = editorReducer(tabbed(), {
      type: 'tabs',
      change: { op: 'component', componentId: 'b', tabId: 'two' },
    });
    expect(ids(state, 'two')).toEqual(['b', 'c']);
    expect(place(state, 'b')).toEqual({ component_id: 'b', x: 0, y: 2, w: 6, h: 2 });
  });

  it('deletes a tab, its components moved to another or removed; the last tab leaves no tabs', () => {
    const moved = editorReducer(tabbed(), { type: 'tabs', change: { op: 'delete', tabId: 'one', moveTo: 'two' } });
    expect(moved.present.tabs.map((tab) => tab.tab_id)).toEqual(['two']);
    expect(ids(moved, 'two')).toEqual(['a', 'b', 'c']);
    // a and b are stacked below c, one after the other, not on top of each other.
    expect(moved.present.layout.map((item) => [item.component_id, item.y])).toEqual([
      ['c', 0],
      ['a', 2],
      ['b', 4],
    ]);
    const removed = editorReducer(tabbed(), { type: 'tabs', change: { op: 'delete', tabId: 'one', moveTo: null } });
    expect(removed.present.components.map((component) => component.component_id)).toEqual(['c']);
    expect(removed.present.layout.map((item) => item.component_id)).toEqual(['c']);
    const last = editorReducer(removed, { type: 'tabs', change: { op: 'delete', tabId: 'two', moveTo: null } });
    expect(last.present.tabs).toEqual([]);
    expect(last.present.components).toEqual([text('c')]);
  });
});
