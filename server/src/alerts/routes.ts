import {
  alertDeliveryListQuerySchema,
  alertDeliveryListSchema,
  alertListSchema,
  alertParamsSchema,
  createAlertRequestSchema,
  createdAlertSchema,
  dashboardAlertsParamsSchema,
  notificationListQuerySchema,
  notificationListSchema,
  notificationParamsSchema,
  problemSchema,
} from '@service/common';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Authenticator } from '../http/authentication.js';
import type { AlertsService } from './service.js';

/** Alerts on dashboard cards and the notifications they leave (docs/live-data.md "Alerts"). */
export function alertRoutes({ alerts }: { alerts: AlertsService }, actorOf: Authenticator): FastifyPluginAsyncZod {
  const errors = { 400: problemSchema, 401: problemSchema, 403: problemSchema, 404: problemSchema };
  const common = { tags: ['alerts'], security: [{ bearerAuth: [] }] };
  return async (app) => {
    app.post(
      '/dashboards/:id/alerts',
      {
        schema: {
          ...common,
          summary: 'Alert me when a card’s number crosses a threshold or changes',
          description:
            'Evaluated once after each new version of the card’s table, as the caller reads the dashboard. ' +
            'With `webhook_url` (its host in SERVICE_ALERTS_WEBHOOK_ALLOWED_HOSTS), each firing is POSTed as JSON ' +
            'signed with `X-Signature-256: sha256=<HMAC-SHA256 of the body>`; the key (`webhook_secret`) is shown only here.',
          params: dashboardAlertsParamsSchema,
          body: createAlertRequestSchema,
          response: { 201: createdAlertSchema, ...errors },
        },
      },
      async (request, reply) => {
        const created = await alerts.create(await actorOf(request), request.params.id, request.body);
        return reply.code(201).send(created);
      },
    );

    app.get(
      '/dashboards/:id/alerts',
      {
        schema: {
          ...common,
          summary: 'Your alerts on this dashboard, newest first',
          params: dashboardAlertsParamsSchema,
          response: { 200: alertListSchema, ...errors },
        },
      },
      async (request) => alerts.list(await actorOf(request), request.params.id),
    );

    app.delete(
      '/alerts/:alert_id',
      {
        schema: {
          ...common,
          summary: 'Delete one of your alerts (its notifications and delivery log go with it)',
          params: alertParamsSchema,
          response: { 204: z.null(), ...errors },
        },
      },
      async (request, reply) => {
        await alerts.delete(await actorOf(request), request.params.alert_id);
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/alerts/:alert_id/deliveries',
      {
        schema: {
          ...common,
          summary: 'The webhook delivery log of one of your alerts, newest first',
          params: alertParamsSchema,
          querystring: alertDeliveryListQuerySchema,
          response: { 200: alertDeliveryListSchema, ...errors },
        },
      },
      async (request) => alerts.deliveries(await actorOf(request), request.params.alert_id, request.query),
    );

    app.get(
      '/notifications',
      {
        schema: {
          ...common,
          summary: 'Your notifications (alerts that fired), newest first, with the unread count',
          querystring: notificationListQuerySchema,
          response: { 200: notificationListSchema, ...errors },
        },
      },
      async (request) => alerts.notifications(await actorOf(request), request.query),
    );

    app.post(
      '/notifications/:notification_id/read',
      {
        schema: {
          ...common,
          summary: 'Mark one of your notifications read',
          params: notificationParamsSchema,
          response: { 204: z.null(), ...errors },
        },
      },
      async (request, reply) => {
        await alerts.markRead(await actorOf(request), request.params.notification_id);
        return reply.code(204).send(null);
      },
    );
  };
}
