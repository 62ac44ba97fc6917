// Invites (presenters/invites.ts) and vanity codes. developers/resources/invite.mdx, "Invite Structure" and "Invite
// Metadata Structure".
import { answeredTimestamp, anyArray, anyObject, boolean, extend, integer, nullable, object, snowflakeSchema, string, nullableId } from './schema.js';
import { User } from './users.js';

/** A vanity code seen as an invite has no inviter and no creation time: both absent, as optional fields are. */
export const Invite = object(
  'An invite (presenters/invites.ts); a vanity code has no inviter and no creation time.',
  {
    code: string,
    type: integer,
    guild_id: snowflakeSchema,
    channel_id: nullableId,
    channel: nullable(object('Its channel.', { id: snowflakeSchema, name: nullable(string), type: integer })),
    pack_id: nullableId,
    inviter_id: nullableId,
    uses: integer,
    max_uses: integer,
    max_age: integer,
    temporary: boolean,
    expires_at: nullable(answeredTimestamp),
  },
  {
    guild: object('Its guild.', { id: snowflakeSchema, name: string }),
    inviter: User,
    created_at: answeredTimestamp,
    pack: object('The sticker pack a pack invite adds.', { id: snowflakeSchema, name: string, guild_id: snowflakeSchema }),
    target_type: integer,
    target_user: User,
    target_application: anyObject,
    approximate_presence_count: integer,
    approximate_member_count: integer,
    guild_scheduled_event: anyObject,
    flags: integer,
    roles: anyArray,
  },
);

/** An invite someone made, with the time they made it. */
export const MadeInvite = extend(Invite, 'An invite made by someone.', { created_at: answeredTimestamp, inviter: User });

export const InviteAccepted = object('What accepting did: joined, already a member, or added the sticker pack.', {
  message: string,
  guild_id: snowflakeSchema,
});

export const VanityUrl = object('A guild’s vanity code and its uses.', { code: nullable(string), uses: integer, guild_id: snowflakeSchema });
