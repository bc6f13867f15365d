import { useHotkeys } from '@mantine/hooks';
import { type DashboardComponent, readsCollection } from '@service/common';
import { type Dispatch, useEffect, useReducer, useState } from 'react';
import { errorMessage } from '../../api/client.js';
import { useDashboardData } from '../useDashboardData.js';
import type { EditCellData } from './EditGrid.js';
import { type Draft, draftOf, type EditorAction, editorReducer, initialEditorState } from './editor-state.js';
import { usePreviewData } from './queries.js';
import { useDashboardVersion } from './useSave.js';

/**
 * The draft edit mode works on: it starts from the dashboard the page shows and is replaced by
 * the version the server has (with its version tag) once that loads. `loaded` is null while
 * loading, true once loaded, or the error. Ctrl+Z / Ctrl+Shift+Z (or Ctrl+Y) undo and redo.
 */
export function useEditorDraft(dashboard: Parameters<typeof draftOf>[0] & { dashboard_id: string }) {
  const dashboardId = dashboard.dashboard_id;
  const [state, dispatch] = useReducer(editorReducer, draftOf(dashboard), initialEditorState);
  const [loaded, setLoaded] = useState<unknown>(null);
  const version = useDashboardVersion(dashboardId);

  // biome-ignore lint/correctness/useExhaustiveDependencies: the version edit mode starts from, once.
  useEffect(() => {
    version.load().then(
      (answer) => {
        dispatch({ type: 'reset', draft: draftOf(answer.data) });
        setLoaded(true);
      },
      (error: unknown) => setLoaded(error),
    );
  }, [dashboardId]);

  useHotkeys([
    ['mod+Z', () => dispatch({ type: 'undo' })],
    ['mod+shift+Z', () => dispatch({ type: 'redo' })],
    ['mod+Y', () => dispatch({ type: 'redo' })],
  ]);

  return { state, dispatch, loaded, version };
}

/**
 * Save with `If-Match`: saved → leave edit mode; someone else saved meanwhile → the conflict
 * dialog (overwrite or reload); any other failure → the error shown above the grid.
 */
export function useSaveDashboard({
  version,
  present,
  dispatch,
  onSaved,
}: {
  version: ReturnType<typeof useDashboardVersion>;
  present: Draft;
  dispatch: Dispatch<EditorAction>;
  onSaved: () => void;
}) {
  const [conflict, setConflict] = useState(false);
  const [saveError, setSaveError] = useState<unknown>(null);

  const save = async (overwrite = false) => {
    setSaveError(null);
    const outcome = await version.save(present, overwrite);
    if ('saved' in outcome) {
      setConflict(false);
      dispatch({ type: 'saved', draft: present });
      onSaved();
    } else if ('conflict' in outcome) {
      setConflict(true);
    } else {
      setConflict(false);
      setSaveError(outcome.failed);
    }
  };

  /** After a conflict: the server's version replaces the draft (`onReloaded` closes what edits the old one). */
  const reload = (onReloaded: () => void) =>
    void version.load().then((answer) => {
      dispatch({ type: 'reset', draft: draftOf(answer.data) });
      onReloaded();
      setConflict(false);
    }, setSaveError);

  return {
    save,
    reload,
    saving: version.saving,
    conflict,
    closeConflict: () => setConflict(false),
    saveError,
    clearSaveError: () => setSaveError(null),
  };
}

const sameComponent = (a: DashboardComponent | undefined, b: DashboardComponent) =>
  a !== undefined && JSON.stringify(a) === JSON.stringify(b);

/**
 * What each cell of the open tab draws: what the server has saved is drawn by the data route;
 * new and changed components are previews.
 */
export function useEditCellData(
  dashboardId: string,
  tabComponents: readonly DashboardComponent[],
  savedComponents: readonly DashboardComponent[],
): (component: DashboardComponent) => EditCellData {
  const savedById = new Map(savedComponents.map((component) => [component.component_id, component]));
  const dataComponents = tabComponents.filter(readsCollection);
  const unchanged = dataComponents.filter((component) =>
    sameComponent(savedById.get(component.component_id), component),
  );
  const changed = dataComponents.filter((component) => !unchanged.includes(component));
  const savedData = useDashboardData(
    dashboardId,
    unchanged.map((component) => component.component_id),
    [],
    null,
  );
  const preview = usePreviewData(dashboardId, changed);
  return (component) => {
    if (!readsCollection(component)) return { data: undefined, waiting: false, note: null };
    if (unchanged.includes(component)) {
      return {
        data: savedData.components.get(component.component_id),
        waiting: savedData.waiting.has(component.component_id),
        note: savedData.error === null ? null : errorMessage(savedData.error),
      };
    }
    if (preview.isError) return { data: undefined, waiting: false, note: errorMessage(preview.error) };
    if (preview.data?.unsupported)
      return { data: undefined, waiting: false, note: 'Shown once the dashboard is saved.' };
    return { data: preview.data?.components[component.component_id], waiting: preview.isFetching, note: null };
  };
}
