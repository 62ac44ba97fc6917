// The application routes (http/routes/applications.ts): a bot's own application, and a session's list.
import { applicationIdParam, editApplicationSchema, editOwnedApplicationSchema } from '../routes/applications.js';
import { listOf, ref } from './components.js';
import type { RouteDoc } from './entry.js';

const own = { description: 'The application of the bot token.', schema: ref('Application') };

export const applicationDocs: RouteDoc[] = [
  {
    method: 'GET',
    path: '/applications',
    summary: 'List your applications',
    tag: 'Accounts',
    auth: 'session',
    responses: { 200: { description: 'The applications the caller owns.', schema: listOf('Application') } },
    errors: [],
  },
  {
    method: 'GET',
    path: '/applications/@me',
    summary: 'Get the bot’s application',
    tag: 'Accounts',
    auth: 'bot',
    responses: { 200: own },
    errors: ['UNKNOWN_APPLICATION'],
  },
  {
    method: 'GET',
    path: '/oauth2/applications/@me',
    summary: 'Get the bot’s application (OAuth2 path)',
    description: 'The same as GET /applications/@me; discord.py calls this one at login.',
    tag: 'Accounts',
    auth: 'bot',
    responses: { 200: own },
    errors: ['UNKNOWN_APPLICATION'],
  },
  {
    method: 'PATCH',
    path: '/applications/@me',
    summary: 'Change the bot’s application',
    description: '`icon` is a data URI (null removes it); `flags` may change only the limited intent flags (1 << 13, 1 << 15, 1 << 19).',
    tag: 'Accounts',
    auth: 'bot',
    body: editApplicationSchema,
    responses: { 200: own },
    errors: ['UNKNOWN_APPLICATION'],
  },
  {
    method: 'PATCH',
    path: '/applications/:id',
    summary: 'Change one of your applications',
    description: 'The owner’s edit: the bot’s fields, and the OAuth2 redirect URIs (absolute https URLs, or http on loopback).',
    tag: 'Accounts',
    auth: 'session',
    params: applicationIdParam,
    body: editOwnedApplicationSchema,
    responses: { 200: { description: 'The application.', schema: ref('Application') } },
    errors: ['UNKNOWN_APPLICATION', 'MISSING_ACCESS'],
  },
];
