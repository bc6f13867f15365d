import { type RevisionContent, storedTabs, summarizeChanges } from '@service/common';
import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.js';
import { dashboardRevisionRows } from '../tables/dashboard-revisions.js';

/** A dashboard's content as its columns hold it (JSON text), in the dashboard row or a revision. */
export interface StoredContent {
  title: string;
  description: string;
  tabs: string;
  components: string;
  layout: string;
  colors: string;
}

export function contentOf(stored: StoredContent): RevisionContent {
  return {
    title: stored.title,
    description: stored.description,
    tabs: storedTabs(JSON.parse(stored.tabs)),
    components: JSON.parse(stored.components),
    layout: JSON.parse(stored.layout),
    colors: JSON.parse(stored.colors),
  };
}

/** A save's revision, written in the save's transaction. */
export interface RevisionEntry {
  dashboardId: string;
  /** The dashboard's revision counter after the save. */
  revision: number;
  savedAt: string;
  savedBy: string | null;
  content: StoredContent;
  /** The content before the save; null for a new dashboard. */
  before: StoredContent | null;
  restoredFrom: number | null;
  /** How many revisions the dashboard keeps (SERVICE_DASHBOARD_REVISIONS_KEPT). */
  kept: number;
}

/** Keeps a save as a revision with the summary of what it changed, and drops those beyond `kept`. */
export async function recordRevision(trx: Kysely<Tables>, entry: RevisionEntry): Promise<void> {
  const { title, description, tabs, components, layout, colors } = entry.content;
  const summary = summarizeChanges(
    entry.before === null ? null : contentOf(entry.before),
    contentOf(entry.content),
    entry.restoredFrom,
  );
  await dashboardRevisionRows.insert(trx, {
    dashboard_id: entry.dashboardId,
    revision: entry.revision,
    saved_at: entry.savedAt,
    saved_by: entry.savedBy,
    ...{ title, description, tabs, components, layout, colors },
    summary: JSON.stringify(summary),
  });
  await dashboardRevisionRows.prune(trx, entry.dashboardId, entry.kept);
}
