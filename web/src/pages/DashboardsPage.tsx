import { DashboardList } from '../dashboard/DashboardList.js';

/** Every dashboard the visitor may read (public ones for anonymous visitors in public and demo mode). */
export function DashboardsPage() {
  return <DashboardList heading={1} />;
}
