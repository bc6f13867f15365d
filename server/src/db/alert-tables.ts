/** The tables of alerts (migration 0022; docs/live-data.md "Alerts"), kept apart from tables.ts for its size. */

export interface AlertsTable {
  id: string;
  dashboard_id: string;
  component_id: string;
  data_collection_id: string;
  user_id: string;
  op: '>' | '>=' | '<' | '<=' | 'change_pct';
  value: number;
  webhook_url: string | null;
  webhook_secret: string | null;
  created_at: string;
}

export interface AlertEvaluationsTable {
  alert_id: string;
  version: number;
  outcome: 'fired' | 'quiet' | 'skipped';
  value: number | null;
  evaluated_at: string;
}

export interface NotificationsTable {
  id: string;
  user_id: string;
  alert_id: string;
  dashboard_id: string;
  component_id: string;
  data_collection_id: string;
  version: number;
  value: number;
  previous_value: number | null;
  created_at: string;
  read_at: string | null;
}

export interface AlertDeliveriesTable {
  id: string;
  alert_id: string;
  notification_id: string;
  url: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  response_status: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}
