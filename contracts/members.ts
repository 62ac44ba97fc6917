// Member and ban objects (presenters/members.ts). developers/resources/guild.mdx, "Guild Member Structure" and
// "Ban Structure".
import { answeredTimestamp, anyObject, boolean, integer, nullable, object, snowflakes, string } from './schema.js';
import { User } from './users.js';

export const Member = object(
  'A guild member with its user.',
  {
    user: User,
    avatar: nullable(string),
    banner: nullable(string),
    roles: snowflakes,
    joined_at: nullable(answeredTimestamp),
    deaf: boolean,
    mute: boolean,
    flags: integer,
  },
  {
    nick: nullable(string),
    premium_since: nullable(answeredTimestamp),
    pending: boolean,
    communication_disabled_until: nullable(answeredTimestamp),
    avatar_decoration_data: nullable(anyObject),
    collectibles: nullable(anyObject),
  },
);

export const Ban = object('A ban.', { reason: nullable(string), user: User });
