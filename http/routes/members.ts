// Member and ban routes: list and fetch members, change their nickname and roles, kick, ban and unban.
import { Ban, Member } from '../../contracts/members.js';
import { list } from '../../contracts/schema.js';
import {
  type WithUser,
  addMemberRole,
  banUser,
  kickMember,
  memberDocOf,
  readBan,
  readBans,
  readMember,
  readMembers,
  removeMemberRole,
  unbanUser,
  updateMember,
} from '../../commands/members.js';
import { addMemberWithAccessToken } from '../../commands/oauth2.js';
import { invalidForm } from '../../domain/errors.js';
import type { MemberDoc } from '../../projections/members.js';
import { actorMeta } from '../actor.js';
import { requireAuth } from '../auth.js';
import { noContent } from '../context.js';
import { guildParams } from '../params.js';
import { banObject, memberObject } from '../../presenters/members.js';
import { route } from '../route.js';
import { nameSchema, pageLimit, parseBody, parseQuery, snowflakeSchema, timestampSchema } from '../validation.js';

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
    // A timeout's end (at most 28 days ahead, MODERATE_MEMBERS), null to lift it.
    communication_disabled_until: { ...timestampSchema, type: ['string', 'null'] },
  },
  // Not strict, unlike the other bodies: the widely used API ignores fields it does not know here, and discord.js's
  // member.edit() / member.timeout() send their camelCase option names (communicationDisabledUntil) beside the fields.
} as const;

export const addMemberSchema = {
  type: 'object',
  properties: {
    access_token: { type: 'string', minLength: 1, maxLength: 512 },
    nick: updateMemberSchema.properties.nick,
    roles: updateMemberSchema.properties.roles,
  },
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

/** The member as the read model shows them, presented. */
const presentMember = ({ doc, user }: WithUser<MemberDoc>) => memberObject(doc, user);

const member = { description: 'The member.', schema: Member };
const MODERATE = 'The member must be below the caller in the role hierarchy, and not the owner.';

export const listMembersRoute = route({
  method: 'GET',
  path: '/guilds/:guildId/members',
  summary: 'List a guild’s members',
  description: 'By user id, after `after`.',
  tag: 'Members',
  auth: 'any',
  params: guildParams,
  query: membersQuery,
  // Read once the caller is known to be a member: anyone else learns only that the guild is unknown.
  readsItself: ['query'],
  responses: { 200: { description: 'The members.', schema: list(Member) } },
  errors: ['UNKNOWN_GUILD'],
  async handle(ctx, { params: { guildId } }, deps) {
    const members = await readMembers(deps, guildId, requireAuth(ctx).userId, () => parseQuery(membersQuery, ctx.query));
    return members.map(presentMember);
  },
});

export const getMemberRoute = route({
  method: 'GET',
  path: '/guilds/:guildId/members/:userId',
  summary: 'Get a member',
  tag: 'Members',
  auth: 'any',
  params: memberParams,
  responses: { 200: member },
  errors: ['UNKNOWN_GUILD', 'UNKNOWN_MEMBER'],
  async handle(ctx, { params: { guildId, userId } }, deps) {
    return presentMember(await readMember(deps, guildId, userId, requireAuth(ctx).userId));
  },
});

// A bot adds a person with the access token they gave its application with guilds.join: 201 and the member, or 204
// when they were a member already (nothing changes), as in the widely used API.
export const addMemberRoute = route({
  method: 'PUT',
  path: '/guilds/:guildId/members/:userId',
  summary: 'Add a member with an OAuth2 access token',
  description:
    'A bot adds the user with the access token they gave its application with the guilds.join scope. Needs CREATE_INSTANT_INVITE, and MANAGE_NICKNAMES or MANAGE_ROLES to give a nick or roles.',
  tag: 'Members',
  auth: 'bot',
  params: memberParams,
  body: addMemberSchema,
  responses: { 201: { description: 'Added: the member.', schema: Member }, 204: { description: 'A member already: nothing changed.' } },
  errors: ['UNKNOWN_GUILD', 'UNKNOWN_ROLE', 'INVALID_OAUTH2_ACCESS_TOKEN', 'USER_BANNED', 'MISSING_PERMISSIONS'],
  async handle(ctx, { params: { guildId, userId }, body: { access_token, nick, roles } }, deps) {
    if (await addMemberWithAccessToken(deps, actorMeta(ctx), { guildId, userId, accessToken: access_token, nick, roles: roles as string[] | undefined }))
      return presentMember(await memberDocOf(deps, guildId, userId));
    noContent(ctx);
  },
});

export const updateMemberRoute = route({
  method: 'PATCH',
  path: '/guilds/:guildId/members/:userId',
  summary: 'Change a member',
  description: `\`nick\` needs MANAGE_NICKNAMES (CHANGE_NICKNAME for oneself; "" or null resets it), \`roles\` MANAGE_ROLES, \`communication_disabled_until\` (a timeout: until then the member may only read; at most 28 days ahead, null lifts it) MODERATE_MEMBERS and a member without ADMINISTRATOR. ${MODERATE} Fields it does not know are ignored. The user id @me names the caller.`,
  tag: 'Members',
  auth: 'any',
  params: { ...memberParams, properties: { ...memberParams.properties, userId: { anyOf: [snowflakeSchema, { const: '@me' }] } } },
  // @me is replaced by the caller's id before the id is checked (and the body after it).
  readsItself: ['params', 'body'],
  body: updateMemberSchema,
  audit: ['MEMBER_UPDATE', 'MEMBER_MOVE', 'MEMBER_DISCONNECT'],
  responses: { 200: member },
  errors: ['UNKNOWN_GUILD', 'UNKNOWN_MEMBER', 'UNKNOWN_ROLE', 'MISSING_PERMISSIONS'],
  async handle(ctx, _input, deps) {
    const meta = actorMeta(ctx);
    // @me names the caller, as the widely used API's "modify current member".
    const { guildId, userId } = parseBody(memberParams, { ...ctx.params, userId: ctx.params.userId === '@me' ? meta.actorId : ctx.params.userId });
    const {
      avatar,
      banner,
      channel_id: channelId,
      mute,
      deaf,
      nick,
      roles,
      communication_disabled_until: until,
    } = parseBody(updateMemberSchema, ctx.request.body);
    const read = (value: string | null | undefined, path: string) => (typeof value === 'string' ? deps.images.parseDataUri(value, path) : value);
    const images = {
      ...(avatar !== undefined ? { avatar: await read(avatar, 'avatar') } : {}),
      ...(banner !== undefined ? { banner: await read(banner, 'banner') } : {}),
    };
    const changes = { nick, roles: roles as string[] | undefined, mute, deaf, communicationDisabledUntil: until, channelId };
    await updateMember(deps, meta, guildId, userId, changes, images);
    return presentMember(await memberDocOf(deps, guildId, userId));
  },
});

export const kickMemberRoute = route({
  method: 'DELETE',
  path: '/guilds/:guildId/members/:userId',
  summary: 'Kick a member',
  description: `Needs KICK_MEMBERS. ${MODERATE}`,
  tag: 'Members',
  auth: 'any',
  params: memberParams,
  audit: 'MEMBER_KICK',
  responses: { 204: { description: 'Kicked.' } },
  errors: ['UNKNOWN_GUILD', 'UNKNOWN_MEMBER', 'MISSING_PERMISSIONS'],
  handle: (ctx, { params: { guildId, userId } }, deps) => kickMember(deps, actorMeta(ctx), guildId, userId),
});

export const addMemberRoleRoute = route({
  method: 'PUT',
  path: '/guilds/:guildId/members/:userId/roles/:roleId',
  summary: 'Give a member a role',
  description: 'Needs MANAGE_ROLES, and the role below the caller’s highest.',
  tag: 'Members',
  auth: 'any',
  params: memberRoleParams,
  audit: 'MEMBER_UPDATE',
  responses: { 204: { description: 'Given.' } },
  errors: ['UNKNOWN_GUILD', 'UNKNOWN_MEMBER', 'UNKNOWN_ROLE', 'MISSING_PERMISSIONS'],
  handle: (ctx, { params: { guildId, userId, roleId } }, deps) => addMemberRole(deps, actorMeta(ctx), guildId, userId, roleId),
});

export const removeMemberRoleRoute = route({
  method: 'DELETE',
  path: '/guilds/:guildId/members/:userId/roles/:roleId',
  summary: 'Take a role from a member',
  description: 'Needs MANAGE_ROLES, and the role below the caller’s highest.',
  tag: 'Members',
  auth: 'any',
  params: memberRoleParams,
  audit: 'MEMBER_UPDATE',
  responses: { 204: { description: 'Taken.' } },
  errors: ['UNKNOWN_GUILD', 'UNKNOWN_MEMBER', 'UNKNOWN_ROLE', 'MISSING_PERMISSIONS'],
  handle: (ctx, { params: { guildId, userId, roleId } }, deps) => removeMemberRole(deps, actorMeta(ctx), guildId, userId, roleId),
});

export const listBansRoute = route({
  method: 'GET',
  path: '/guilds/:guildId/bans',
  summary: 'List a guild’s bans',
  description: 'Needs BAN_MEMBERS.',
  tag: 'Members',
  auth: 'any',
  params: guildParams,
  query: bansQuery,
  // Read once the caller may see the bans.
  readsItself: ['query'],
  responses: { 200: { description: 'The bans.', schema: list(Ban) } },
  errors: ['UNKNOWN_GUILD', 'MISSING_PERMISSIONS'],
  async handle(ctx, { params: { guildId } }, deps) {
    const bans = await readBans(deps, guildId, requireAuth(ctx).userId, () => parseQuery(bansQuery, ctx.query));
    return bans.map(({ doc, user }) => banObject(doc, user));
  },
});

export const getBanRoute = route({
  method: 'GET',
  path: '/guilds/:guildId/bans/:userId',
  summary: 'Get a ban',
  description: 'Needs BAN_MEMBERS.',
  tag: 'Members',
  auth: 'any',
  params: memberParams,
  responses: { 200: { description: 'The ban.', schema: Ban } },
  errors: ['UNKNOWN_GUILD', 'UNKNOWN_BAN', 'MISSING_PERMISSIONS'],
  async handle(ctx, { params: { guildId, userId } }, deps) {
    const { doc, user } = await readBan(deps, guildId, userId, requireAuth(ctx).userId);
    return banObject(doc, user);
  },
});

export const banRoute = route({
  method: 'PUT',
  path: '/guilds/:guildId/bans/:userId',
  summary: 'Ban a user',
  description: `Needs BAN_MEMBERS. ${MODERATE} Deletes the user’s messages of the last \`delete_message_seconds\` (or days).`,
  tag: 'Members',
  auth: 'any',
  params: memberParams,
  body: banSchema,
  audit: 'MEMBER_BAN_ADD',
  responses: { 204: { description: 'Banned.' } },
  errors: ['UNKNOWN_GUILD', 'UNKNOWN_USER', 'MISSING_PERMISSIONS'],
  async handle(ctx, { params: { guildId, userId }, body }, deps) {
    if (body.delete_message_days !== undefined && body.delete_message_seconds !== undefined) {
      throw invalidForm([{ path: 'delete_message_seconds', message: 'Give delete_message_days or delete_message_seconds, not both' }]);
    }
    await banUser(deps, actorMeta(ctx), guildId, userId, body.delete_message_seconds ?? (body.delete_message_days ?? 0) * 86400);
  },
});

export const unbanRoute = route({
  method: 'DELETE',
  path: '/guilds/:guildId/bans/:userId',
  summary: 'Unban a user',
  description: 'Needs BAN_MEMBERS.',
  tag: 'Members',
  auth: 'any',
  params: memberParams,
  audit: 'MEMBER_BAN_REMOVE',
  responses: { 204: { description: 'Unbanned.' } },
  errors: ['UNKNOWN_GUILD', 'UNKNOWN_BAN', 'MISSING_PERMISSIONS'],
  handle: (ctx, { params: { guildId, userId } }, deps) => unbanUser(deps, actorMeta(ctx), guildId, userId),
});

export const memberRoutes = [
  listMembersRoute,
  getMemberRoute,
  addMemberRoute,
  updateMemberRoute,
  kickMemberRoute,
  addMemberRoleRoute,
  removeMemberRoleRoute,
  listBansRoute,
  getBanRoute,
  banRoute,
  unbanRoute,
];
