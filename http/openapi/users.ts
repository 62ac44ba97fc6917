// The user routes (http/routes/users.ts).
import { patchMeSchema, userIdParam } from '../routes/users.js';
import { ref } from './components.js';
import type { RouteDoc } from './entry.js';

export const userDocs: RouteDoc[] = [
  {
    method: 'GET',
    path: '/users/@me',
    summary: 'Get the current user',
    tag: 'Users',
    auth: 'any',
    oauth2Scope: 'identify',
    responses: { 200: { description: 'The caller, with email and verified.', schema: ref('User') } },
    errors: ['RATE_LIMITED'],
  },
  {
    method: 'PATCH',
    path: '/users/@me',
    summary: 'Change the current user',
    description: '`avatar` is a data URI (data:image/png;base64,…); null removes it. Limited to once per 10 seconds.',
    tag: 'Users',
    auth: 'any',
    body: patchMeSchema,
    responses: { 200: { description: 'The caller as changed.', schema: ref('User') } },
    errors: ['RATE_LIMITED'],
  },
  {
    method: 'GET',
    path: '/users/@me/relationships',
    summary: 'List the current user’s relationships',
    description: 'Always empty: no route adds a relationship.',
    tag: 'Users',
    auth: 'any',
    responses: { 200: { description: 'An empty list.', schema: { type: 'array', items: {}, maxItems: 0 } } },
    errors: ['RATE_LIMITED'],
  },
  {
    method: 'GET',
    path: '/users/:userId',
    summary: 'Get a user',
    tag: 'Users',
    auth: 'none',
    params: userIdParam,
    responses: { 200: { description: 'The user.', schema: ref('User') } },
    errors: ['UNKNOWN_USER', 'RATE_LIMITED'],
  },
];
