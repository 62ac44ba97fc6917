// What a send or edit says beyond its text: whom it mentions, and its components.
import { type Component, IS_COMPONENTS_V2, validateComponents } from '../../domain/components.js';
import { type AllowedMentions, allowMentions, parseMentions } from '../../domain/mentions.js';
import type { MessageFields, MessageUser } from '../../domain/message.js';
import { Permission } from '../../domain/permissions.js';
import { usersByIds } from '../../projections/users.queries.js';
import type { MessageChannelAccess } from '../access.js';
import type { Uses } from '../deps.js';
import { toMessageUser } from '../dms.js';
import { has } from './state.js';

type Mentions = Pick<MessageFields, 'mentions' | 'mention_roles' | 'mention_everyone' | 'mention_channels'>;

/** Whom `content` mentions, among the users, roles and channels that exist; @everyone only with MENTION_EVERYONE. */
export async function mentionsOf(
  deps: Uses<'readStore'>,
  access: MessageChannelAccess,
  content: string,
  allowed: AllowedMentions | undefined,
  replied: MessageUser | null,
): Promise<Mentions> {
  const parsed = allowMentions(parseMentions(content), allowed);
  const users = parsed.users.length ? await usersByIds(deps.readStore, parsed.users) : [];
  const mentions = parsed.users.flatMap((id) => users.filter((u) => u._id === id).map(toMessageUser));
  // A reply mentions the replied-to author unless allowed_mentions says otherwise.
  if (replied && (allowed ? allowed.replied_user === true : true) && !mentions.some((u) => u.id === replied.id)) mentions.push(replied);
  const guild = access.guild;
  return {
    mentions,
    mention_roles: guild ? parsed.roles.filter((id) => id !== guild.id && guild.roles.has(id)) : [],
    mention_everyone: parsed.everyone && has(access, Permission.MENTION_EVERYONE),
    mention_channels: guild
      ? parsed.channels.flatMap((id) => {
          const channel = guild.channels.get(id);
          return channel ? [{ id, guild_id: guild.id, type: channel.type, name: channel.name }] : [];
        })
      : [],
  };
}

/** Validated components, when the author's components count and some were sent; `flags`: the message's, after the change. */
export const componentsOf = (count: boolean, components: unknown[] | undefined, flags: number): Component[] | undefined =>
  count && components !== undefined ? validateComponents(components, (flags & IS_COMPONENTS_V2) !== 0) : undefined;
