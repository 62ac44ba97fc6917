// Member and ban routes: list and fetch members, change their nickname and roles, kick, ban and unban.
import Router from '@koa/router';
import { guildAccess } from '../../commands/access.js';
import { banUser, runGuildCommand, updateMember } from '../../commands/guilds.js';
import { addMemberWithAccessToken } from '../../commands/oauth2.js';
import { assertVoiceMove, moveVoiceMember, requireInVoice } from '../../commands/voice.js';
import { invalidForm } from '../../domain/errors.js';
import { unknownBan, unknownMember } from '../../domain/guildState.js';
import { Permission, requirePermission } from '../../domain/permissions.js';
import { banOf, bansPage, memberOf, membersPage } from '../../projections/members.queries.js';
import { actorMeta, usersById } from '../actor.js';
import { requireAuth } from '../auth.js';
import { type HttpDeps, noContent } from '../context.js';
import { guildParams } from '../params.js';
import { banObject, memberObject } from '../../presenters/members.js';
import { nameSchema, pageLimit, parseBody, parseQuery, snowflakeSchema } from '../validation.js';

export const memberParams = { type: 'object', properties: { guildId: snowflakeSchema, userId: snowflakeSchema }, required: ['guildId', 'userId'] } as const;
export const memberRoleParams = {
  type: 'object',
  properties: { guildId: snowflakeSchema, userId: snowflakeSchema, roleId: snowflakeSchema },
  required: ['guildId', 'userId', 'roleId'],
} as const;

export const membersQuery = { type: 'object', properties: { limit: pageLimit(1000, 1), after: snowflakeSchema } } as const;
export const bansQuery = {
  type: 'object',
  properties: { limit: pageLimit(1000, 1000), after: snowflakeSchema, before: snowflakeSchema },
} as const;

export const updateMemberSchema = {
  type: 'object',
  properties: {
    nick: { ...nameSchema(0, 32), type: ['string', 'null'] },
    roles: { type: 'array', items: snowflakeSchema, maxItems: 250 },
    // The member's own guild avatar and banner: data URIs, null to remove.
    avatar: { type: ['string', 'null'] },
    banner: { type: ['string', 'null'] },
    // Voice moderation: move to a voice channel (null disconnects), server mute and deafen; for a member in voice.
    channel_id: { ...snowflakeSchema, type: ['string', 'null'] },
    mute: { type: 'boolean' },
    deaf: { type: 'boolean' },
  },
  additionalProperties: false,
} as const;

export const addMemberSchema = {
  type: 'object',
  properties: { access_token: { type: 'string', minLength: 1, maxLength: 512 }, nick: updateMemberSchema.properties.nick, roles: updateMemberSchema.properties.roles },
  required: ['access_token'],
  additionalProperties: false,
} as const;

export const banSchema = {
  type: 'object',
  properties: {
    delete_message_days: { type: 'integer', minimum: 0, maximum: 7 },
    delete_message_seconds: { type: 'integer', minimum: 0, maximum: 604800 },
  },
  additionalProperties: false,
} as const;

export function memberRoutes(deps: HttpDeps): Router {
  const router = new Router();

  async function fetchMember(guildId: string, userId: string) {
    const member = await memberOf(deps.readStore, guildId, userId);
    const user = member && (await usersById(deps.readStore, [userId])).get(userId);
    if (!member || !user) throw unknownMember();
    return memberObject(member, user);
  }

  router.get('/guilds/:guildId/members', async (ctx) => {
    const { guildId } = parseBody(guildParams, ctx.params);
    await guildAccess(deps, guildId, requireAuth(ctx).userId);
    const query = parseQuery(membersQuery, ctx.query);
    const members = await membersPage(deps.readStore, guildId, { after: query.after ?? '0', limit: query.limit });
    const users = await usersById(deps.readStore, members.map((m) => m.user_id));
    ctx.body = members.flatMap((m) => (users.has(m.user_id) ? [memberObject(m, users.get(m.user_id)!)] : []));
  });

  router.get('/guilds/:guildId/members/:userId', async (ctx) => {
    const { guildId, userId } = parseBody(memberParams, ctx.params);
    await guildAccess(deps, guildId, requireAuth(ctx).userId);
    ctx.body = await fetchMember(guildId, userId);
  });

  // A bot adds a person with the access token they gave its application with guilds.join: 201 and the member, or 204
  // when they were a member already (nothing changes), as in the widely used API.
  router.put('/guilds/:guildId/members/:userId', async (ctx) => {
    const meta = actorMeta(ctx);
    const { guildId, userId } = parseBody(memberParams, ctx.params);
    const { access_token, nick, roles } = parseBody(addMemberSchema, ctx.request.body);
    if (!(await addMemberWithAccessToken(deps, meta, { guildId, userId, accessToken: access_token, nick, roles: roles as string[] | undefined }))) return noContent(ctx);
    ctx.status = 201;
    ctx.body = await fetchMember(guildId, userId);
  });

  router.patch('/guilds/:guildId/members/:userId', async (ctx) => {
    const meta = actorMeta(ctx);
    // @me names the caller, as the widely used API's "modify current member".
    const { guildId, userId } = parseBody(memberParams, { ...ctx.params, userId: ctx.params.userId === '@me' ? meta.actorId : ctx.params.userId });
    const { avatar, banner, channel_id: channelId, mute, deaf, ...body } = parseBody(updateMemberSchema, ctx.request.body);
    const read = (value: string | null | undefined, path: string) => (typeof value === 'string' ? deps.images.parseDataUri(value, path) : value);
    const images = { ...(avatar !== undefined ? { avatar: await read(avatar, 'avatar') } : {}), ...(banner !== undefined ? { banner: await read(banner, 'banner') } : {}) };
    // The voice move is on the guild's voice stream: decided before the member's changes are appended, appended after.
    if (mute !== undefined || deaf !== undefined) await requireInVoice(deps, guildId, userId);
    if (channelId !== undefined) await assertVoiceMove(deps, meta, guildId, userId, channelId);
    await updateMember(deps, meta, guildId, userId, { nick: body.nick, roles: body.roles as string[] | undefined, mute, deaf }, images);
    if (channelId !== undefined) await moveVoiceMember(deps, meta, guildId, userId, channelId);
    ctx.body = await fetchMember(guildId, userId);
  });

  router.delete('/guilds/:guildId/members/:userId', async (ctx) => {
    const meta = actorMeta(ctx);
    const { guildId, userId } = parseBody(memberParams, ctx.params);
    await runGuildCommand(deps, meta, guildId, { type: 'KickMember', actorId: meta.actorId, userId });
    noContent(ctx);
  });

  router.put('/guilds/:guildId/members/:userId/roles/:roleId', async (ctx) => {
    const meta = actorMeta(ctx);
    const { guildId, userId, roleId } = parseBody(memberRoleParams, ctx.params);
    await runGuildCommand(deps, meta, guildId, { type: 'AddMemberRole', actorId: meta.actorId, userId, roleId });
    noContent(ctx);
  });

  router.delete('/guilds/:guildId/members/:userId/roles/:roleId', async (ctx) => {
    const meta = actorMeta(ctx);
    const { guildId, userId, roleId } = parseBody(memberRoleParams, ctx.params);
    await runGuildCommand(deps, meta, guildId, { type: 'RemoveMemberRole', actorId: meta.actorId, userId, roleId });
    noContent(ctx);
  });

  async function requireBanViewer(guildId: string, userId: string) {
    const { permissions } = await guildAccess(deps, guildId, userId);
    requirePermission(permissions, Permission.BAN_MEMBERS);
  }

  router.get('/guilds/:guildId/bans', async (ctx) => {
    const { guildId } = parseBody(guildParams, ctx.params);
    await requireBanViewer(guildId, requireAuth(ctx).userId);
    const query = parseQuery(bansQuery, ctx.query);
    const bans = await bansPage(deps.readStore, guildId, query);
    const users = await usersById(deps.readStore, bans.map((b) => b.user_id));
    ctx.body = bans.flatMap((b) => (users.has(b.user_id) ? [banObject(b, users.get(b.user_id)!)] : []));
  });

  router.get('/guilds/:guildId/bans/:userId', async (ctx) => {
    const { guildId, userId } = parseBody(memberParams, ctx.params);
    await requireBanViewer(guildId, requireAuth(ctx).userId);
    const ban = await banOf(deps.readStore, guildId, userId);
    const user = ban && (await usersById(deps.readStore, [userId])).get(userId);
    if (!ban || !user) throw unknownBan();
    ctx.body = banObject(ban, user);
  });

  router.put('/guilds/:guildId/bans/:userId', async (ctx) => {
    const meta = actorMeta(ctx);
    const { guildId, userId } = parseBody(memberParams, ctx.params);
    const body = parseBody(banSchema, ctx.request.body);
    if (body.delete_message_days !== undefined && body.delete_message_seconds !== undefined) {
      throw invalidForm([{ path: 'delete_message_seconds', message: 'Give delete_message_days or delete_message_seconds, not both' }]);
    }
    await banUser(deps, meta, guildId, userId, body.delete_message_seconds ?? (body.delete_message_days ?? 0) * 86400);
    noContent(ctx);
  });

  router.delete('/guilds/:guildId/bans/:userId', async (ctx) => {
    const meta = actorMeta(ctx);
    const { guildId, userId } = parseBody(memberParams, ctx.params);
    await runGuildCommand(deps, meta, guildId, { type: 'UnbanMember', actorId: meta.actorId, userId });
    noContent(ctx);
  });

  return router;
}
