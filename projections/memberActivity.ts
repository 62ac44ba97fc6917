// When each member was last active in their guild, for prunes: joining, and since then their last message, reaction,
// voice join or gateway session start (a session start is the user's, so it counts in each of their guilds). One
// document per member, kept from the events as they come, so a prune reads the inactive members by one indexed range
// instead of the log. Times are ISO strings, which sort as the instants they name.
import type { WriteOp } from '../ports/readStore.js';
import { MEMBER_ACTIVITY } from './collections.js';
import { memberKey } from './members.js';
import { projection } from './projection.js';

export interface MemberActivityDoc {
  /** `${guild_id}:${user_id}` */
  _id: string;
  guild_id: string;
  user_id: string;
  last_active_at: string;
  [key: string]: unknown;
}

const HOUR_MS = 60 * 60 * 1000;

/** An instant as toISOString writes it (events' createdAt), past the start of its hour: the hour, then the rest. */
const WITHIN_HOUR = /^(\d{4}-\d{2}-\d{2}T\d{2}):(?!00:00\.000Z)[0-5]\d:[0-5]\d\.\d{3}Z$/;

/** The hour (its first 13 characters) activityHour last ended, and its end. */
let last = { hour: '', end: '' };

/**
 * An activity's time as kept: the end of its hour. Prunes count in days, and a member's every message would otherwise
 * rewrite their document; rounded up, a member is never taken for less active than they were.
 */
export function activityHour(at: string): string {
  // Every instant within an hour (past its start) ends at the same time: computed once for a run of them, which is what
  // a log's events are, instead of a Date parsed and written again for each.
  const match = WITHIN_HOUR.exec(at);
  if (match && match[1] === last.hour) return last.end;
  const end = new Date(Math.ceil(Date.parse(at) / HOUR_MS) * HOUR_MS).toISOString();
  if (match) last = { hour: match[1], end };
  return end;
}

/** Moves the member's last activity forward to the end of `at`'s hour (an event projected late never moves it back). */
const activeAt = (guildId: string | null, userId: string, at: string): WriteOp[] =>
  guildId
    ? [{ updateOne: { collection: MEMBER_ACTIVITY, filter: { _id: memberKey(guildId, userId) }, update: { $max: { last_active_at: activityHour(at) } } } }]
    : [];

export const memberActivityProjection = projection({
  name: 'memberActivity',
  handles: [
    'MemberJoined',
    'MessageCreated',
    'ReactionAdded',
    'VoiceChannelJoined',
    'GatewaySessionStarted',
    'MemberLeft',
    'MemberKicked',
    'MemberBanned',
    'MembersPruned',
    'GuildDeleted',
  ],
  collections: [MEMBER_ACTIVITY],
  indexes: [
    { collection: MEMBER_ACTIVITY, keys: { guild_id: 1, last_active_at: 1 } },
    { collection: MEMBER_ACTIVITY, keys: { user_id: 1 } },
  ],
  project(e) {
    switch (e.type) {
      case 'MemberJoined': {
        // A member who comes back starts afresh: their join is their latest activity.
        const { guildId, userId, joinedAt } = e.data;
        const doc: MemberActivityDoc = { _id: memberKey(guildId, userId), guild_id: guildId, user_id: userId, last_active_at: joinedAt };
        return [{ replaceOne: { collection: MEMBER_ACTIVITY, filter: { _id: doc._id }, replacement: doc, upsert: true } }];
      }
      // Only members have a document to move: a webhook's messages and a DM's name no member.
      case 'MessageCreated':
        return activeAt(e.data.guildId, e.data.authorId, e.metadata.createdAt);
      case 'ReactionAdded':
        return activeAt(e.data.guildId, e.data.userId, e.metadata.createdAt);
      case 'VoiceChannelJoined':
        return activeAt(e.data.guildId, e.data.state.user_id, e.metadata.createdAt);
      case 'GatewaySessionStarted':
        return [
          {
            updateMany: {
              collection: MEMBER_ACTIVITY,
              filter: { user_id: e.data.userId },
              update: { $max: { last_active_at: activityHour(e.metadata.createdAt) } },
            },
          },
        ];
      case 'MemberLeft':
      case 'MemberKicked':
      case 'MemberBanned':
        return [{ deleteOne: { collection: MEMBER_ACTIVITY, filter: { _id: memberKey(e.data.guildId, e.data.userId) } } }];
      case 'MembersPruned':
        return [{ deleteMany: { collection: MEMBER_ACTIVITY, filter: { guild_id: e.data.guildId, user_id: { $in: e.data.userIds } } } }];
      case 'GuildDeleted':
        return [{ deleteMany: { collection: MEMBER_ACTIVITY, filter: { guild_id: e.data.guildId } } }];
    }
  },
});
