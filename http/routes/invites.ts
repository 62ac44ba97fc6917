// Invite routes: fetch, accept and revoke an invite by code (vanity codes included); create and list the invites of a
// channel, of a guild, and of a guild's sticker pack (pack id = guild id).
import Router from '@koa/router';
import { channelAccess, guildAccess } from '../../commands/access.js';
import { type InviteOptions, acceptInvite, createChannelInvite, createGuildInvite, createPackInvite, deleteInvite } from '../../commands/invites.js';
import { isInviteUsable, unknownInvite } from '../../domain/invite.js';
import { Permission, requirePermission } from '../../domain/permissions.js';
import { channelsByIds } from '../../projections/channels.queries.js';
import { guildByVanityCode, guildsByIds } from '../../projections/guilds.queries.js';
import { type InviteScope, inviteByCode, invitesOf } from '../../projections/invites.queries.js';
import { actorMeta, usersById } from '../actor.js';
import { requireAuth } from '../auth.js';
import { type HttpDeps, noContent } from '../context.js';
import { channelParams, guildParams } from '../params.js';
import { type InviteView, inviteObject } from '../../presenters/invites.js';
import { type LimitSpec, rateLimit } from '../rateLimit.js';
import { type FromSchema, parseBody, parseQuery, snowflakeSchema } from '../validation.js';

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

export function inviteRoutes(deps: HttpDeps): Router {
  const router = new Router();
  // The spec: all invite routes 100 per minute per application, and the listed ones also 5 per 10 seconds each.
  const application = rateLimit({ bucket: 'invites', points: 100, durationSeconds: 60 });
  const endpoint = (bucket: string) => [application, rateLimit({ bucket, points: 5, durationSeconds: 10 } satisfies LimitSpec)];

  /** Invite objects for documents, with their guilds, channels and inviters. */
  async function present(docs: InviteView[]) {
    const [guilds, channels, inviters] = await Promise.all([
      guildsByIds(deps.readStore, [...new Set(docs.map((d) => d.guild_id))]),
      channelsByIds(deps.readStore, docs.flatMap((d) => (d.channel_id ? [d.channel_id] : []))),
      usersById(deps.readStore, docs.map((d) => d.inviter_id)),
    ]);
    return docs.flatMap((doc) => {
      const guild = guilds.find((g) => g._id === doc.guild_id);
      if (!guild) return [];
      const channel = channels.find((c) => c._id === doc.channel_id) ?? null;
      return [inviteObject(doc, guild, channel, doc.inviter_id ? (inviters.get(doc.inviter_id) ?? null) : null)];
    });
  }

  async function liveInvites(of: InviteScope) {
    const now = Date.now();
    return present((await invitesOf(deps.readStore, of)).filter((doc) => isInviteUsable(doc, now)));
  }

  async function presentCode(code: string) {
    const doc = await inviteByCode(deps.readStore, code);
    const [invite] = doc ? await present([doc]) : [];
    if (!invite) throw unknownInvite();
    return invite;
  }

  /** A vanity code as an invite: no inviter, no limits, into the guild's system channel. */
  async function vanityInvite(code: string) {
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
    return (await present([view]))[0];
  }

  router.get('/invites/:code', ...endpoint('invites:get'), async (ctx) => {
    requireAuth(ctx);
    const { code } = parseBody(codeParams, ctx.params);
    parseQuery(fetchQuery, ctx.query);
    const doc = await inviteByCode(deps.readStore, code);
    const invite = doc ? (isInviteUsable(doc, Date.now()) ? (await present([doc]))[0] : undefined) : await vanityInvite(code);
    if (!invite) throw unknownInvite();
    ctx.body = invite;
  });

  router.post('/invites/:code', ...endpoint('invites:accept'), async (ctx) => {
    const meta = actorMeta(ctx);
    const { code } = parseBody(codeParams, ctx.params);
    const { guildId, outcome } = await acceptInvite(deps, meta, code);
    ctx.body = { message: ACCEPTED_MESSAGES[outcome], guild_id: guildId };
  });

  router.delete('/invites/:code', ...endpoint('invites:delete'), async (ctx) => {
    const meta = actorMeta(ctx);
    const { code } = parseBody(codeParams, ctx.params);
    await deleteInvite(deps, meta, code);
    noContent(ctx);
  });

  router.post('/channels/:channelId/invites', ...endpoint('channel-invites:create'), async (ctx) => {
    const meta = actorMeta(ctx);
    const { channelId } = parseBody(channelParams, ctx.params);
    const options = withDefaults(parseBody(createSchema, ctx.request.body));
    ctx.body = await presentCode(await createChannelInvite(deps, meta, channelId, options));
  });

  router.get('/channels/:channelId/invites', ...endpoint('channel-invites:list'), async (ctx) => {
    const { channelId } = parseBody(channelParams, ctx.params);
    const { permissions } = await channelAccess(deps, channelId, requireAuth(ctx).userId);
    requirePermission(permissions, Permission.MANAGE_CHANNELS);
    ctx.body = await liveInvites({ channel_id: channelId });
  });

  router.delete('/channels/:channelId/invites/:code', ...endpoint('channel-invites:delete'), async (ctx) => {
    const meta = actorMeta(ctx);
    const { channelId, code } = parseBody(channelCodeParams, ctx.params);
    await channelAccess(deps, channelId, meta.actorId);
    await deleteInvite(deps, meta, code, channelId);
    noContent(ctx);
  });

  router.get('/guilds/:guildId/invites', application, async (ctx) => {
    const { guildId } = parseBody(guildParams, ctx.params);
    const { permissions } = await guildAccess(deps, guildId, requireAuth(ctx).userId);
    requirePermission(permissions, Permission.MANAGE_GUILD);
    ctx.body = await liveInvites({ guild_id: guildId, pack_id: null });
  });

  router.post('/guilds/:guildId/invites', application, async (ctx) => {
    const meta = actorMeta(ctx);
    const { guildId } = parseBody(guildParams, ctx.params);
    const body = parseBody(createGuildInviteSchema, ctx.request.body);
    ctx.body = await presentCode(await createGuildInvite(deps, meta, guildId, { ...withDefaults(body), channelId: body.channel_id }));
  });

  router.get('/packs/:packId/invites', application, async (ctx) => {
    const { packId } = parseBody(packParams, ctx.params);
    const { permissions } = await guildAccess(deps, packId, requireAuth(ctx).userId);
    requirePermission(permissions, Permission.MANAGE_GUILD);
    ctx.body = await liveInvites({ pack_id: packId });
  });

  router.post('/packs/:packId/invites', application, async (ctx) => {
    const meta = actorMeta(ctx);
    const { packId } = parseBody(packParams, ctx.params);
    ctx.body = await presentCode(await createPackInvite(deps, meta, packId, withDefaults(parseBody(createSchema, ctx.request.body))));
  });

  return router;
}
