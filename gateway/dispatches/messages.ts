// Dispatches of message, reaction, pin and DM channel events. Guild channel events go to the guild's sessions that can
// view the channel; DM events to the channel's recipients; ephemeral messages only to their author, the users they
// mention and the user whose interaction they answer. A guild message carries its author's member and each mentioned
// member's, as the widely used API sends them.
import { MessageFlags, ephemeralAudience, type MessageFields } from '../../domain/message.js';
import { dmChannelObject, messageObject } from '../../presenters/messages.js';
import { type PartialMemberObject, partialMemberObject } from '../../presenters/members.js';
import type { ParleyMessage } from '../../presenters/differences.js';
import type { GuildState } from '../../domain/guildState.js';
import { loadGuildNow } from '../../commands/access.js';
import { apiTimestamp } from '../../presenters/timestamps.js';
import type { GatewayDeps } from '../deps.js';
import type { DmChannelDoc } from '../../projections/dms.js';
import { type MessageDoc, messageDoc } from '../../projections/messages.js';
import { dmChannelById } from '../../projections/dms.queries.js';
import { messageById } from '../../projections/messages.queries.js';
import { threadById } from '../../projections/threads.queries.js';
import { threadDocObject } from '../../presenters/threads.js';
import type { APIThreadChannel, APIUser } from 'discord-api-types/v10';
import type { Audience, Dispatch } from '../dispatch.js';
import { type Listeners, deriver, dispatch } from './deriver.js';
import { guildMember } from '../guilds.js';
import { Intent, type DispatchData } from '../protocol.js';

interface Place {
  audience: Audience;
  /** Which of a pair of intents applies: the guild one or the DM one. */
  dm: boolean;
}

async function placeOf(runtime: GatewayDeps, channelId: string, guildId: string | null): Promise<Place> {
  if (guildId) return { audience: { guildId, channelId }, dm: false };
  const channel = await dmChannelById(runtime.readStore, channelId);
  return { audience: { users: channel?.recipient_ids ?? [] }, dm: true };
}

/** Who sees a message: ephemeral ones only their author, the users they mention and the user they answer. */
function messageAudience(place: Place, message: Pick<MessageFields, 'flags' | 'author' | 'mentions' | 'interaction_metadata'>): Audience {
  if (message.flags & MessageFlags.EPHEMERAL) return { users: ephemeralAudience(message) };
  return place.audience;
}

/**
 * The guild a message was posted in, as the guild aggregate stands (loaded once for the event: routing the dispatch
 * to the channel's viewers uses the same state), for its members; null outside a guild, once the guild is gone, or
 * when no session on this node is in it (nobody would receive them).
 */
async function guildOf(runtime: GatewayDeps, listeners: Listeners, place: Place, guildId: string | null): Promise<GuildState | null> {
  if (place.dm || !guildId || listeners.usersIn(guildId).size === 0) return null;
  const guild = await loadGuildNow(runtime, guildId);
  return guild.status === 'active' ? guild : null;
}

/** A message as MESSAGE_CREATE and MESSAGE_UPDATE carry it: in a guild, with the members of its author and mentions. */
type MessageData = ParleyMessage & { member?: PartialMemberObject; mentions: (APIUser & { member?: PartialMemberObject })[] };

/**
 * The message, given its author's member and each mentioned member's, without their users (`author` and the mention
 * are the user): discord.py makes `message.author` a Member only from it without the members intent, and discord.js's
 * `message.member` is null without it. A webhook's message has none, its author being the webhook, never a member.
 * Set on the presenter's fresh object rather than copied: a copy of a whole message costs more than the members.
 */
function withMembers(message: MessageData, guild: GuildState | null): MessageData {
  if (!guild) return message;
  const author = guild.members.get(message.author.id);
  if (author) message.member = partialMemberObject(author);
  if (message.mentions.length > 0)
    message.mentions = message.mentions.map((user) => {
      const member = guild.members.get(user.id);
      return member ? { ...user, member: partialMemberObject(member) } : user;
    });
  return message;
}

function messageDispatch(
  t: 'MESSAGE_CREATE' | 'MESSAGE_UPDATE',
  place: Place,
  doc: MessageDoc,
  runtime: GatewayDeps,
  guild: GuildState | null,
  thread?: APIThreadChannel,
): Dispatch {
  const d = withMembers(messageObject(doc, { origin: runtime.config.publicBaseUrl, thread }), guild);
  return dispatch(t, d, {
    intent: place.dm ? Intent.DIRECT_MESSAGES : Intent.GUILD_MESSAGES,
    audience: messageAudience(place, doc),
    // In DMs content needs no intent; in guilds it needs MESSAGE_CONTENT unless the reader wrote it or is mentioned.
    ...(place.dm
      ? {}
      : {
          withoutContent: {
            d: { ...d, content: '', embeds: [], attachments: [], components: [] },
            authorId: doc.author.id,
            mentionIds: doc.mentions.map((u) => u.id),
          },
        }),
  });
}

function dmChannelDispatches(t: 'CHANNEL_CREATE' | 'CHANNEL_UPDATE' | 'CHANNEL_DELETE', doc: DmChannelDoc, userIds: string[]): Dispatch[] {
  return userIds.map((userId) => dispatch(t, dmChannelObject(doc, userId), { intent: null, audience: { users: [userId] } }));
}

export const messageDispatches = deriver({
  handles: [
    'MessageCreated',
    'MessageEdited',
    'MessageDeleted',
    'MessagesBulkDeleted',
    'ReactionAdded',
    'ReactionRemoved',
    'ReactionsCleared',
    'MessagePinned',
    'MessageUnpinned',
    'ThreadCreated',
    'DmChannelOpened',
    'DmChannelReopened',
    'DmChannelClosed',
    'RecipientAdded',
    'RecipientRemoved',
    'GroupDmRenamed',
  ],
  async derive(event, runtime, listeners) {
    switch (event.type) {
      case 'MessageCreated': {
        const { channelId, guildId } = event.data;
        const place = await placeOf(runtime, channelId, guildId);
        return [messageDispatch('MESSAGE_CREATE', place, messageDoc(event.data.message), runtime, await guildOf(runtime, listeners, place, guildId))];
      }
      case 'MessageEdited': {
        const { channelId, guildId } = event.data;
        const doc = await messageById(runtime.readStore, event.data.messageId);
        if (!doc) return [];
        const place = await placeOf(runtime, channelId, guildId);
        return [messageDispatch('MESSAGE_UPDATE', place, doc, runtime, await guildOf(runtime, listeners, place, guildId))];
      }
      // The message a thread is started from changes: it now carries the thread.
      case 'ThreadCreated': {
        if (!event.data.fromMessage) return [];
        const [doc, thread] = await Promise.all([messageById(runtime.readStore, event.data.thread.id), threadById(runtime.readStore, event.data.thread.id)]);
        if (!doc || !thread) return [];
        const place = await placeOf(runtime, doc.channel_id, event.data.guildId);
        const guild = await guildOf(runtime, listeners, place, event.data.guildId);
        return [messageDispatch('MESSAGE_UPDATE', place, doc, runtime, guild, threadDocObject(thread))];
      }
      case 'MessageDeleted': {
        if (event.data.bulk) return [];
        const place = await placeOf(runtime, event.data.channelId, event.data.guildId);
        const d: DispatchData['MESSAGE_DELETE'] = {
          id: event.data.messageId,
          channel_id: event.data.channelId,
          ...(event.data.guildId ? { guild_id: event.data.guildId } : {}),
        };
        return [dispatch('MESSAGE_DELETE', d, { intent: place.dm ? Intent.DIRECT_MESSAGES : Intent.GUILD_MESSAGES, audience: place.audience })];
      }
      case 'MessagesBulkDeleted': {
        const place = await placeOf(runtime, event.data.channelId, event.data.guildId);
        const d: DispatchData['MESSAGE_DELETE_BULK'] = {
          ids: event.data.messageIds,
          channel_id: event.data.channelId,
          ...(event.data.guildId ? { guild_id: event.data.guildId } : {}),
        };
        return [dispatch('MESSAGE_DELETE_BULK', d, { intent: Intent.GUILD_MESSAGES, audience: place.audience })];
      }
      case 'ReactionAdded':
      case 'ReactionRemoved':
      case 'ReactionsCleared': {
        const { channelId, guildId, messageId, emoji } = event.data;
        const place = await placeOf(runtime, channelId, guildId);
        const ids: DispatchData['MESSAGE_REACTION_REMOVE_ALL'] = { channel_id: channelId, message_id: messageId, ...(guildId ? { guild_id: guildId } : {}) };
        const intent = place.dm ? Intent.DIRECT_MESSAGE_REACTIONS : Intent.GUILD_MESSAGE_REACTIONS;
        if (event.type === 'ReactionAdded') {
          // In a guild the reacting member comes along (reaction-role bots read it), as the widely used API sends it.
          const member = guildId ? await guildMember(runtime, guildId, event.data.userId) : null;
          const d = {
            ...ids,
            user_id: event.data.userId,
            ...(member ? { member } : {}),
            emoji: event.data.emoji,
            message_author_id: event.data.messageAuthorId,
            burst: false,
            type: 0,
          } satisfies DispatchData['MESSAGE_REACTION_ADD'];
          return [dispatch('MESSAGE_REACTION_ADD', d, { intent, audience: place.audience })];
        }
        if (event.type === 'ReactionRemoved')
          return [
            dispatch(
              'MESSAGE_REACTION_REMOVE',
              { ...ids, user_id: event.data.userId, emoji: event.data.emoji, burst: false, type: 0 },
              { intent, audience: place.audience },
            ),
          ];
        return emoji
          ? [dispatch('MESSAGE_REACTION_REMOVE_EMOJI', { ...ids, emoji }, { intent, audience: place.audience })]
          : [dispatch('MESSAGE_REACTION_REMOVE_ALL', ids, { intent, audience: place.audience })];
      }
      case 'MessagePinned':
      case 'MessageUnpinned': {
        const { channelId, guildId, lastPinTimestamp } = event.data;
        const place = await placeOf(runtime, channelId, guildId);
        const d: DispatchData['CHANNEL_PINS_UPDATE'] = {
          channel_id: channelId,
          last_pin_timestamp: apiTimestamp(lastPinTimestamp),
          ...(guildId ? { guild_id: guildId } : {}),
        };
        return [dispatch('CHANNEL_PINS_UPDATE', d, { intent: place.dm ? Intent.DIRECT_MESSAGES : Intent.GUILDS, audience: place.audience })];
      }
      case 'DmChannelOpened': {
        const doc = await dmChannelById(runtime.readStore, event.data.channelId);
        return doc
          ? dmChannelDispatches(
              'CHANNEL_CREATE',
              doc,
              event.data.recipients.map((u) => u.id),
            )
          : [];
      }
      case 'DmChannelReopened': {
        const doc = await dmChannelById(runtime.readStore, event.data.channelId);
        return doc ? dmChannelDispatches('CHANNEL_CREATE', doc, [event.data.userId]) : [];
      }
      case 'DmChannelClosed': {
        const doc = await dmChannelById(runtime.readStore, event.data.channelId);
        return doc ? dmChannelDispatches('CHANNEL_DELETE', doc, [event.data.userId]) : [];
      }
      case 'RecipientAdded': {
        const doc = await dmChannelById(runtime.readStore, event.data.channelId);
        if (!doc) return [];
        const others = doc.recipient_ids.filter((id) => id !== event.data.user.id);
        return [
          dispatch('CHANNEL_RECIPIENT_ADD', { channel_id: doc._id, user: event.data.user }, { intent: null, audience: { users: others } }),
          ...dmChannelDispatches('CHANNEL_CREATE', doc, [event.data.user.id]),
        ];
      }
      case 'RecipientRemoved': {
        const doc = await dmChannelById(runtime.readStore, event.data.channelId);
        if (!doc) return [];
        return [
          dispatch('CHANNEL_RECIPIENT_REMOVE', { channel_id: doc._id, user: event.data.user }, { intent: null, audience: { users: doc.recipient_ids } }),
          dispatch('CHANNEL_DELETE', { id: doc._id, type: doc.type }, { intent: null, audience: { users: [event.data.user.id] } }),
        ];
      }
      case 'GroupDmRenamed': {
        const doc = await dmChannelById(runtime.readStore, event.data.channelId);
        return doc ? dmChannelDispatches('CHANNEL_UPDATE', doc, doc.recipient_ids) : [];
      }
    }
  },
});
