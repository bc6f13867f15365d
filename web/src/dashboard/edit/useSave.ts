import { type Dashboard, dashboardSchema, type UpdateDashboardRequestInput } from '@service/common';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError, type Tagged } from '../../api/client.js';
import { useApi } from '../../auth/session.js';
import type { Draft } from './editor-state.js';

export type SaveOutcome = { saved: Dashboard } | { conflict: true } | { failed: unknown };

/**
 * Loading and saving the dashboard edit mode works on, with its version tag: a save sends
 * `If-Match` with the ETag of the version the draft started from, so someone else's save in
 * between answers 412 instead of being overwritten.
 */
export function useDashboardVersion(dashboardId: string) {
  const api = useApi();
  const queryClient = useQueryClient();
  const [etag, setEtag] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const path = `/dashboards/${dashboardId}`;

  const load = async (): Promise<Tagged<Dashboard>> => {
    const answer = await api.requestTagged(path, dashboardSchema);
    setEtag(answer.etag);
    queryClient.setQueryData(['dashboard', dashboardId], answer.data);
    return answer;
  };

  /** Saves the draft; `overwrite` saves over whatever version is on the server now. */
  const save = async (draft: Draft, overwrite = false): Promise<SaveOutcome> => {
    setSaving(true);
    try {
      const base = overwrite ? (await api.requestTagged(path, dashboardSchema)).etag : etag;
      const body: UpdateDashboardRequestInput = draft;
      const answer = await api.requestTagged(path, dashboardSchema, {
        method: 'PUT',
        json: body,
        ...(base === null ? {} : { ifMatch: base }),
      });
      // The PUT's own tag, or (a server that sends none with PUT) the one a fresh GET gives.
      setEtag(answer.etag ?? (await api.requestTagged(path, dashboardSchema)).etag);
      queryClient.setQueryData(['dashboard', dashboardId], answer.data);
      void queryClient.invalidateQueries({ queryKey: ['dashboards', answer.data.project_id] });
      return { saved: answer.data };
    } catch (error) {
      if (error instanceof ApiError && error.status === 412) return { conflict: true };
      return { failed: error };
    } finally {
      setSaving(false);
    }
  };

  return { load, save, saving };
}
