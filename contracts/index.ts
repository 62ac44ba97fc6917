// The objects the API answers with, by the names the reference gives them (its components): routes name them as
// their answers, and a route's handler must return what its answer's schema describes (http/route.ts).
import { Channel, Overwrite } from './channels.js';
import { Emoji, ReactionEmoji, Sticker, StickerPage } from './expressions.js';
import { Guild, PartialGuild } from './guilds.js';
import { Ban, Member } from './members.js';
import { Attachment, Embed, Message, PinnedMessages, Reaction } from './messages.js';
import { Role } from './roles.js';
import { PartialUser, User } from './users.js';

export const CONTRACTS = {
  User,
  PartialUser,
  Guild,
  PartialGuild,
  Role,
  Emoji,
  ReactionEmoji,
  Sticker,
  StickerPage,
  Channel,
  Overwrite,
  Member,
  Ban,
  Message,
  Attachment,
  Embed,
  Reaction,
  PinnedMessages,
} as const;

export type ContractName = keyof typeof CONTRACTS;
