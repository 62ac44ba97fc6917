// The objects the API answers with, by the names the reference gives them (its components): routes name them as
// their answers, and a route's handler must return what its answer's schema describes (http/route.ts).
import { Application, ApplicationWithSecret, BotToken, BotUser, ClientSecret, OAuth2Refusal, OAuth2Token, Session } from './applications.js';
import { Channel, Overwrite } from './channels.js';
import { ApplicationCommand, ApplicationCommandIndex, InteractionCallback } from './commands.js';
import { ErrorBody, RateLimitError } from './errors.js';
import { Emoji, ReactionEmoji, Sticker, StickerPage } from './expressions.js';
import { Gateway, GatewayBot } from './gateway.js';
import { Guild, PartialGuild } from './guilds.js';
import { Invite, InviteAccepted, VanityUrl } from './invites.js';
import { Ban, Member } from './members.js';
import { Attachment, Embed, Message, PinnedMessages, Reaction } from './messages.js';
import { AuditLog, AuditLogEntry, AutoModerationRule, BulkBanResult, PruneCount } from './moderation.js';
import { Role } from './roles.js';
import { Thread, ThreadList, ThreadMember } from './threads.js';
import { PartialUser, User } from './users.js';
import { InteractionRecord, Webhook } from './webhooks.js';

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
  Error: ErrorBody,
  RateLimitError,
  Session,
  Application,
  ApplicationWithSecret,
  BotUser,
  OAuth2Token,
  OAuth2Error: OAuth2Refusal,
  ClientSecret,
  BotToken,
  Gateway,
  GatewayBot,
  AutoModerationRule,
  PruneCount,
  BulkBanResult,
  VanityUrl,
  AuditLog,
  AuditLogEntry,
  ApplicationCommand,
  ApplicationCommandIndex,
  InteractionCallback,
  Thread,
  ThreadList,
  ThreadMember,
  Invite,
  InviteAccepted,
  Webhook,
  InteractionRecord,
} as const;

export type ContractName = keyof typeof CONTRACTS;
