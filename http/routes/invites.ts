// Invite routes: fetch, accept and revoke an invite by code (vanity codes included); create and list the invites of a
// channel, of a guild, and of a guild's sticker pack (pack id = guild id).
import { Invite, InviteAccepted } from '../../contracts/invites.js';
import { list } from '../../contracts/schema.js';
import {
  type InviteOptions,
  acceptInvite,
  createChannelInvite,
  createGuildInvite,
  createPackInvite,
  deleteInvite,
  readChannelInvites,
  readGuildInvites,
} from '../../commands/invites.js';
import { isInviteUsable, unknownInvite } from '../../domain/invite.js';
import { channelsByIds } from '../../projections/channels.queries.js';
import { guildByVanityCode, guildsByIds } from '../../projections/guilds.queries.js';
import { inviteByCode } from '../../projections/invites.queries.js';
import { actorMeta, usersById } from '../actor.js';
import { requireAuth } from '../auth.js';
import type { HttpDeps } from '../context.js';
import { channelParams, guildParams } from '../params.js';
import { type InviteView, inviteObject } from '../../presenters/invites.js';
import type { LimitSpec } from '../rateLimit.js';
import { route } from '../route.js';
import { type FromSchema, snowflakeSchema } from '../validation.js';

const inviteCode = { type: 'string', pattern: '^[A-Za-z0-9-]{1,32}$' } as const;
export const codeParams = { type: 'object', properties: { code: inviteCode }, required: ['code'] } as const;
export const channelCodeParams = { type: 'object', properties: { channelId: snowflakeSchema, code: inviteCode }, required: ['channelId', 'code'] } as const;
export const packParams = { type: 'object', properties: { packId: snowflakeSchema }, required: ['packId'] } as const;
export const fetchQuery = { type: 'object', properties: { with_counts: { type: 'boolean' }, with_expiration: { type: 'boolean' } } } as const;

const inviteOptions = {
  max_uses: { type: 'integer', minimum: 0, maximum: 100 },
  max_age: { type: 'integer', minimum: 0, maximum: 604800 },
  temporary: { type: 'boolean' },
  unique: { type: 'boolean' },
  // Stream and activity targets are not part of this service; clients of the widely used API send them as null.
  target_type: { type: 'null' },
  target_user_id: { type: 'null' },
  target_application_id: { type: 'null' },
} as const;
export const createSchema = { type: 'object', properties: inviteOptions, additionalProperties: false } as const;
export const createGuildInviteSchema = { type: 'object', properties: { ...inviteOptions, channel_id: snowflakeSchema }, additionalProperties: false } as const;

/** The spec's defaults: unlimited uses, one day, not temporary, reuse an equivalent invite. */
const withDefaults = (body: FromSchema<typeof createSchema>): InviteOptions => ({
  max_uses: body.max_uses ?? 0,
  max_age: body.max_age ?? 86400,
  temporary: body.temporary ?? false,
  unique: body.unique ?? false,
});

const ACCEPTED_MESSAGES = { joined: 'Joined the guild', already_member: 'Already a member of the guild', pack_added: 'Sticker pack added' } as const;

/** Invite objects for documents, with their guilds, channels and inviters. */
async function present(deps: HttpDeps, docs: InviteView[]) {
  const [guilds, channels, inviters] = await Promise.all([
    guildsByIds(deps.readStore, [...new Set(docs.map((d) => d.guild_id))]),
    channelsByIds(
      deps.readStore,
      docs.flatMap((d) => (d.channel_id ? [d.channel_id] : [])),
    ),
    usersById(
      deps.readStore,
      docs.map((d) => d.inviter_id),
    ),
  ]);
  return docs.flatMap((doc) => {
    const guild = guilds.find((g) => g._id === doc.guild_id);
    if (!guild) return [];
    const channel = channels.find((c) => c._id === doc.channel_id) ?? null;
    return [inviteObject(doc, guild, channel, doc.inviter_id ? (inviters.get(doc.inviter_id) ?? null) : null)];
  });
}

async function presentCode(deps: HttpDeps, code: string) {
  const doc = await inviteByCode(deps.readStore, code);
  const [invite] = doc ? await present(deps, [doc]) : [];
  if (!invite) throw unknownInvite();
  return invite;
}

/** A vanity code as an invite: no inviter, no limits, into the guild's system channel. */
async function vanityInvite(deps: HttpDeps, code: string) {
  const guild = await guildByVanityCode(deps.readStore, code);
  if (!guild) return null;
  const view: InviteView = {
    code,
    guild_id: guild._id,
    channel_id: guild.system_channel_id,
    pack_id: null,
    inviter_id: null,
    max_uses: 0,
    max_age: 0,
    temporary: false,
    created_at: null,
    expires_at: null,
    uses: guild.vanity_url_uses,
  };
  return (await present(deps, [view]))[0];
}

// The spec: all invite routes 100 per minute per application, and the listed ones also 5 per 10 seconds each.
const application: LimitSpec = { bucket: 'invites', points: 100, durationSeconds: 60 };
const endpoint = (bucket: string): LimitSpec[] => [application, { bucket, points: 5, durationSeconds: 10 }];

const invite = { description: 'The invite.', schema: Invite };
const invites = { description: 'The invites still usable.', schema: list(Invite) };
const REUSE = 'Answers an equivalent invite of the caller’s instead of a new one unless `unique` is true.';

export const getInviteRoute = route({
  method: 'GET',
  path: '/invites/:code',
  summary: 'Get an invite',
  description: 'A vanity code answers as an invite too.',
  tag: 'Invites',
  auth: 'any',
  params: codeParams,
  query: fetchQuery,
  limits: endpoint('invites:get'),
  responses: { 200: invite },
  errors: ['UNKNOWN_INVITE'],
  async handle(_ctx, { params: { code } }, deps) {
    const doc = await inviteByCode(deps.readStore, code);
    const found = doc ? (isInviteUsable(doc, Date.now()) ? (await present(deps, [doc]))[0] : undefined) : await vanityInvite(deps, code);
    if (!found) throw unknownInvite();
    return found;
  },
});

export const acceptInviteRoute = route({
  method: 'POST',
  path: '/invites/:code',
  summary: 'Accept an invite',
  description: 'Joins its guild (or adds its sticker pack); a vanity code is accepted too.',
  tag: 'Invites',
  auth: 'any',
  params: codeParams,
  limits: endpoint('invites:accept'),
  responses: { 200: { description: 'What accepting did.', schema: InviteAccepted } },
  errors: ['UNKNOWN_INVITE', 'USER_BANNED'],
  async handle(ctx, { params: { code } }, deps) {
    const { guildId, outcome } = await acceptInvite(deps, actorMeta(ctx), code);
    return { message: ACCEPTED_MESSAGES[outcome], guild_id: guildId };
  },
});

export const deleteInviteRoute = route({
  method: 'DELETE',
  path: '/invites/:code',
  summary: 'Revoke an invite',
  description: 'Needs MANAGE_CHANNELS on its channel, or MANAGE_GUILD.',
  tag: 'Invites',
  auth: 'any',
  params: codeParams,
  limits: endpoint('invites:delete'),
  audit: 'INVITE_DELETE',
  responses: { 204: { description: 'Revoked.' } },
  errors: ['UNKNOWN_INVITE', 'MISSING_PERMISSIONS'],
  handle: (ctx, { params: { code } }, deps) => deleteInvite(deps, actorMeta(ctx), code),
});

export const createChannelInviteRoute = route({
  method: 'POST',
  path: '/channels/:channelId/invites',
  summary: 'Create a channel invite',
  description: `Needs CREATE_INSTANT_INVITE. ${REUSE}`,
  tag: 'Invites',
  auth: 'any',
  params: channelParams,
  body: createSchema,
  limits: endpoint('channel-invites:create'),
  audit: 'INVITE_CREATE',
  responses: { 200: invite },
  errors: ['UNKNOWN_CHANNEL', 'MISSING_PERMISSIONS'],
  handle: async (ctx, { params: { channelId }, body }, deps) =>
    presentCode(deps, await createChannelInvite(deps, actorMeta(ctx), channelId, withDefaults(body))),
});

export const listChannelInvitesRoute = route({
  method: 'GET',
  path: '/channels/:channelId/invites',
  summary: 'List a channel’s invites',
  description: 'Needs MANAGE_CHANNELS.',
  tag: 'Invites',
  auth: 'any',
  params: channelParams,
  limits: endpoint('channel-invites:list'),
  responses: { 200: invites },
  errors: ['UNKNOWN_CHANNEL', 'MISSING_PERMISSIONS'],
  handle: async (ctx, { params: { channelId } }, deps) => present(deps, await readChannelInvites(deps, channelId, requireAuth(ctx).userId)),
});

export const deleteChannelInviteRoute = route({
  method: 'DELETE',
  path: '/channels/:channelId/invites/:code',
  summary: 'Revoke a channel’s invite',
  description: 'Needs MANAGE_CHANNELS on the channel, or MANAGE_GUILD.',
  tag: 'Invites',
  auth: 'any',
  params: channelCodeParams,
  limits: endpoint('channel-invites:delete'),
  audit: 'INVITE_DELETE',
  responses: { 204: { description: 'Revoked.' } },
  errors: ['UNKNOWN_CHANNEL', 'UNKNOWN_INVITE', 'MISSING_PERMISSIONS'],
  handle: (ctx, { params: { channelId, code } }, deps) => deleteInvite(deps, actorMeta(ctx), code, channelId),
});

export const listGuildInvitesRoute = route({
  method: 'GET',
  path: '/guilds/:guildId/invites',
  summary: 'List a guild’s invites',
  description: 'Needs MANAGE_GUILD.',
  tag: 'Invites',
  auth: 'any',
  params: guildParams,
  limits: [application],
  responses: { 200: invites },
  errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS'],
  handle: async (ctx, { params: { guildId } }, deps) => present(deps, await readGuildInvites(deps, guildId, requireAuth(ctx).userId, 'guild')),
});

export const createGuildInviteRoute = route({
  method: 'POST',
  path: '/guilds/:guildId/invites',
  summary: 'Create a guild invite',
  description: `Into \`channel_id\`, or the first channel the caller may invite into; needs CREATE_INSTANT_INVITE there. ${REUSE}`,
  tag: 'Invites',
  auth: 'any',
  params: guildParams,
  body: createGuildInviteSchema,
  limits: [application],
  audit: 'INVITE_CREATE',
  responses: { 200: invite },
  errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS'],
  handle: async (ctx, { params: { guildId }, body }, deps) =>
    presentCode(deps, await createGuildInvite(deps, actorMeta(ctx), guildId, { ...withDefaults(body), channelId: body.channel_id })),
});

export const listPackInvitesRoute = route({
  method: 'GET',
  path: '/packs/:packId/invites',
  summary: 'List a sticker pack’s invites',
  description: 'A guild’s pack has the guild’s id. Needs MANAGE_GUILD.',
  tag: 'Invites',
  auth: 'any',
  params: packParams,
  limits: [application],
  responses: { 200: invites },
  errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS'],
  handle: async (ctx, { params: { packId } }, deps) => present(deps, await readGuildInvites(deps, packId, requireAuth(ctx).userId, 'pack')),
});

export const createPackInviteRoute = route({
  method: 'POST',
  path: '/packs/:packId/invites',
  summary: 'Create a sticker pack invite',
  description: `A guild’s pack has the guild’s id. Needs CREATE_INSTANT_INVITE. ${REUSE}`,
  tag: 'Invites',
  auth: 'any',
  params: packParams,
  body: createSchema,
  limits: [application],
  audit: 'INVITE_CREATE',
  responses: { 200: invite },
  errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS'],
  handle: async (ctx, { params: { packId }, body }, deps) => presentCode(deps, await createPackInvite(deps, actorMeta(ctx), packId, withDefaults(body))),
});

export const inviteRoutes = [
  getInviteRoute,
  acceptInviteRoute,
  deleteInviteRoute,
  createChannelInviteRoute,
  listChannelInvitesRoute,
  deleteChannelInviteRoute,
  listGuildInvitesRoute,
  createGuildInviteRoute,
  listPackInvitesRoute,
  createPackInviteRoute,
];
