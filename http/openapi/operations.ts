// The operator's endpoints (http/operations.ts), answered at the origin's root before authentication and routing.
import type { RouteDoc } from './entry.js';

const status = (description: string, fields: Record<string, unknown>) => ({
  description,
  schema: { type: 'object', properties: fields, required: Object.keys(fields) },
});

export const operationDocs: RouteDoc[] = [
  {
    method: 'GET',
    path: '/healthz',
    summary: 'Is the process up',
    description: '503 `{status: "starting"}` while it starts or once it is closing.',
    tag: 'Operations',
    auth: 'none',
    responses: { 200: status('Up.', { status: { const: 'ok' } }) },
    errors: [],
    root: 'only',
  },
  {
    method: 'GET',
    path: '/readyz',
    summary: 'Does the process serve current data',
    description:
      '503 while starting, while the projections are more than 1000 events behind the log (`status: "catching up"`), or while the engines (the log, the read models) fail or do not answer within 2 s (`status: "engine unreachable"`, `reason`: what they said).',
    tag: 'Operations',
    auth: 'none',
    responses: { 200: status('Ready.', { status: { const: 'ready' }, projection_lag: { type: 'integer' } }) },
    errors: [],
    root: 'only',
  },
  {
    method: 'GET',
    path: '/metrics',
    summary: 'Prometheus metrics',
    description:
      'Behind METRICS_TOKEN (`Authorization: Bearer <METRICS_TOKEN>`): requests by route template and status, group commits, projection lag, gateway sessions, deliveries and the process’s own figures.',
    tag: 'Operations',
    auth: 'none',
    responses: { 200: { description: 'Prometheus’s text format.', type: 'text/plain', schema: { type: 'string' } } },
    errors: ['UNAUTHORIZED', 'METRICS_DISABLED'],
    root: 'only',
  },
];
