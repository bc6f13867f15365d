import type { Dashboard } from '@service/common';

/**
 * Whether the web app offers Embed… on a dashboard's components: an embed token publishes, so it
 * takes a say over the dashboard and the project's share right (docs/export.md); the server
 * decides, this only spares a person a button that would answer 403.
 */
export function mayEmbed(dashboard: Pick<Dashboard, 'my_role' | 'project_role'>): boolean {
  const managesDashboard =
    dashboard.my_role === 'owner' || dashboard.my_role === 'editor' || dashboard.my_role === 'admin';
  const sharesProject = dashboard.project_role === 'owner' || dashboard.project_role === 'admin';
  return managesDashboard && sharesProject;
}
