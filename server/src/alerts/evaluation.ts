import type { AlertCondition, AsOf } from '@service/common';
import type { DashboardDataService } from '../dashboards/data/service.js';
import { componentsOf } from '../dashboards/presenter.js';
import type { DashboardsService } from '../dashboards/service.js';
import type { AlertsTable } from '../db/tables.js';
import { DomainError } from '../errors.js';
import type { UserActor } from '../policy/actor.js';
import type { UsersRepository } from '../users/repository.js';

export interface EvaluationSources {
  dashboards: Pick<DashboardsService, 'access'>;
  dashboardData: Pick<DashboardDataService, 'prepare' | 'answer'>;
  users: Pick<UsersRepository, 'findById'>;
}

/** The alert's owner as the actor its data is read as; null when gone, disabled or expired. */
export async function ownerOf(sources: EvaluationSources, userId: string): Promise<UserActor | null> {
  const user = await sources.users.findById(userId);
  const expired = user?.expires_at != null && user.expires_at <= new Date().toISOString();
  if (!user || user.disabled === 1 || expired) return null;
  return { kind: 'user', userId: user.id, role: user.role, isTemporary: user.is_temporary === 1, sessionId: null };
}

/**
 * The card's number at one version of its table, read as its owner reads the dashboard (no
 * filters): null when the owner may no longer read it, the card is gone or reads another table, or
 * its answer is not a finite number.
 */
export async function cardValueAt(
  sources: EvaluationSources,
  owner: UserActor,
  alert: AlertsTable,
  version: number,
): Promise<number | null> {
  try {
    const { record } = await sources.dashboards.access(owner, alert.dashboard_id, 'resource.read');
    const card = componentsOf(record).find((component) => component.component_id === alert.component_id);
    if (card?.type !== 'card' || card.data_collection_id !== alert.data_collection_id) return null;
    const asOf: AsOf = { [alert.data_collection_id]: version };
    const prepared = await sources.dashboardData.prepare(
      owner,
      alert.dashboard_id,
      { filters: [], components: [alert.component_id], as_of: asOf },
      () => undefined,
    );
    const data = (await sources.dashboardData.answer(prepared)).components[alert.component_id];
    const value = data !== undefined && 'value' in data ? data.value : undefined;
    const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    return typeof number === 'number' && Number.isFinite(number) ? number : null;
  } catch (error) {
    // Refused (the owner lost the right), gone, or a version that does not exist: nothing to judge.
    if (error instanceof DomainError) return null;
    throw error;
  }
}

/**
 * Whether the rule holds. `change_pct` compares with the previous version's number: it fires when
 * the change exceeds `value` percent of it either way; from 0, any change fires; with no previous
 * number (the first version, or none could be read) it never fires.
 */
export function holds(condition: AlertCondition, value: number, previous: number | null): boolean {
  switch (condition.op) {
    case '>':
      return value > condition.value;
    case '>=':
      return value >= condition.value;
    case '<':
      return value < condition.value;
    case '<=':
      return value <= condition.value;
    case 'change_pct': {
      if (previous === null) return false;
      if (previous === 0) return value !== 0;
      return (Math.abs(value - previous) / Math.abs(previous)) * 100 > condition.value;
    }
  }
}
