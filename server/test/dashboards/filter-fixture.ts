import type { DashboardComponentInput } from '@service/common';
import { call, createProjectWithUpload, type TestServer, uploadFile } from '../../../test/support/test-server.js';

/**
 * Orders and their customers, two collections of one project joined on `customer`: what the
 * dashboard filter tests narrow. Order 4 has nulls in every column but its id.
 */
export const ORDERS_CSV = [
  'order_id,customer,amount,day,paid,note,at',
  '1,c1,10,2024-01-01,true,Rush,2024-01-01T08:00:00Z',
  '2,c2,20,2024-01-02,false,plain,2024-01-02T23:30:00Z',
  '3,c1,30,2024-01-03,true,gift WRAP,2024-01-03T12:00:00Z',
  '4,,,,,,',
  '5,c3,50,2024-01-05,false,rush order,2024-01-05T00:00:00Z',
].join('\n');

/** The orders with a sixth one: a new version of the table. */
export const MORE_ORDERS_CSV = `${ORDERS_CSV}\n6,c2,60,2024-01-06,true,late,2024-01-06T09:00:00Z`;

export const CUSTOMERS_CSV = ['customer,region', 'c1,north', 'c2,south', 'c3,north'].join('\n');

export async function upsert(server: TestServer, token: string, collectionId: string): Promise<number> {
  const answer = await call<{ version: number }>(server, 'POST', '/deltatables/upsert', {
    token,
    json: { data_collection_id: collectionId },
  });
  if (answer.status !== 200) throw new Error(`upsert failed: ${answer.text}`);
  return answer.body.version;
}

/** The project with both tables written and the join declared. */
export async function ordersProject(server: TestServer, token: string, name = 'Shop') {
  const project = await createProjectWithUpload(server, token, name, ORDERS_CSV);
  const customers = await call<{ data_collection_id: string }>(
    server,
    'POST',
    `/workflows/${project.workflowId}/datacollections`,
    { token, json: { tag: 'customers', pattern: 'c\\.csv', format: 'csv' } },
  );
  const customersId = customers.body.data_collection_id;
  if ((await uploadFile(server, token, customersId, { path: 'c.csv', content: CUSTOMERS_CSV })) !== 201) {
    throw new Error('upload failed');
  }
  await upsert(server, token, project.collectionId);
  await upsert(server, token, customersId);
  const join = await call(server, 'POST', `/projects/${project.projectId}/joins`, {
    token,
    json: { name: 'order_customer', left: project.collectionId, right: customersId, on: ['customer'] },
  });
  if (join.status !== 201) throw new Error(`join failed: ${join.text}`);
  return { projectId: project.projectId, ordersId: project.collectionId, customersId };
}

/** A component of every filtering kind on orders, a select on customers, and what they narrow. */
export function shopComponents(ordersId: string, customersId: string): DashboardComponentInput[] {
  const orders = { data_collection_id: ordersId };
  return [
    { component_id: 'customer', type: 'interactive', widget: 'select', column: 'customer', ...orders },
    { component_id: 'customers', type: 'interactive', widget: 'multiselect', column: 'customer', ...orders },
    { component_id: 'amount', type: 'interactive', widget: 'range', column: 'amount', ...orders },
    { component_id: 'day', type: 'interactive', widget: 'date_range', column: 'day', ...orders },
    { component_id: 'at', type: 'interactive', widget: 'date_range', column: 'at', ...orders },
    { component_id: 'paid', type: 'interactive', widget: 'switch', column: 'paid', ...orders },
    { component_id: 'note', type: 'interactive', widget: 'search', column: 'note', ...orders },
    { component_id: 'by_customer', type: 'figure', chart: 'bar', x: 'customer', ...orders },
    { component_id: 'amounts', type: 'figure', chart: 'histogram', x: 'amount', ...orders },
    { component_id: 'share', type: 'figure', chart: 'pie', color: 'customer', ...orders },
    { component_id: 'box', type: 'figure', chart: 'box', y: 'amount', ...orders },
    { component_id: 'orders', type: 'card', agg: 'count', ...orders },
    { component_id: 'total', type: 'card', agg: 'sum', column: 'amount', ...orders },
    {
      component_id: 'order_rows',
      type: 'table',
      page_size: 10,
      sort: [{ column: 'order_id', direction: 'asc' }],
      ...orders,
    },
    {
      component_id: 'region',
      type: 'interactive',
      widget: 'select',
      column: 'region',
      data_collection_id: customersId,
    },
    { component_id: 'customer_count', type: 'card', agg: 'count', data_collection_id: customersId },
  ];
}
