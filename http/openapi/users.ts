// The user routes (http/routes/users.ts).
import { deleteMeSchema, patchMeSchema, userIdParam } from '../routes/users.js';
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
    method: 'POST',
    path: '/users/@me/delete',
    summary: 'Delete the current user’s account',
    description:
      'Takes the account’s password. The account leaves its guilds and group DMs, its OAuth2 grants, sessions and gateway connections (closed 4004) end, its username and email register again, and it shows as `Deleted User` (same id) wherever it appears, its messages included. Refused while it owns a guild or an application. Session tokens only: a bot token gets 403. Limited to 5 a minute.',
    tag: 'Users',
    auth: 'session',
    body: deleteMeSchema,
    responses: { 204: { description: 'The account is deleted; its tokens answer 401 from now on.' } },
    errors: ['GUILD_OWNERSHIP', 'APPLICATION_OWNERSHIP', 'BOTS_NOT_ALLOWED', 'RATE_LIMITED'],
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
