// Webhooks: managing them and reading them and the clicks on their messages (MANAGE_WEBHOOKS in their channel, or in
// the guild for a guild's list), and what their token allows — reading and changing the webhook, and executing it,
// which posts a normal message in its channel under the webhook's name.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { DomainError, badRequest, invalidForm } from '../domain/errors.js';
import { isForum, webhookNeedsThread, webhookServiceInForum, webhookThreadNameAndId, webhookThreadOutsideForum } from '../domain/forum.js';
import { guildDecider } from '../domain/guild.js';
import { type ChannelData, type GuildState, unknownChannel } from '../domain/guildState.js';
import { Permission, requirePermission } from '../domain/permissions.js';
import {
  MAX_WEBHOOKS_PER_CHANNEL,
  WEBHOOK_CHANNEL_TYPES,
  type WebhookCommand,
  type WebhookData,
  type WebhookSettings,
  requireWebhook,
  unknownWebhook,
  webhookDecider,
} from '../domain/webhook.js';
import type { Image } from '../ports/images.js';
import { type CheckOutboundUrl, OutboundUrlError } from '../ports/outbound.js';
import { sha256 } from '../ports/secrets.js';
import type { InteractionDoc } from '../projections/interactions.js';
import { interactionsOfWebhook } from '../projections/interactions.queries.js';
import type { MessageDoc } from '../projections/messages.js';
import type { WebhookDoc } from '../projections/webhooks.js';
import { type WebhookScope, webhookCountInChannel, webhooksOf } from '../projections/webhooks.queries.js';
import { channelAccess, guildAccess, loadThread } from './access.js';
import { type ActorMeta, type RequestMeta, type Uses, metadata } from './deps.js';
import type { MessageChannelAccess } from './access.js';
import type { SendInput, UploadedFile } from './messages/input.js';
import { type Authorship, type Opening, postMessage } from './messages/send.js';
import { preparePost } from './forum.js';
import { guildStream, webhookStream } from './streams.js';

const avatarKey = (webhookId: string, hash: string) => `avatars/${webhookId}/${hash}`;

/** What a webhook's messages may do in its channel: post with embeds and files, and mention anyone, as in the widely used API. */
const WEBHOOK_PERMISSIONS =
  Permission.VIEW_CHANNEL |
  Permission.SEND_MESSAGES |
  Permission.EMBED_LINKS |
  Permission.ATTACH_FILES |
  Permission.MENTION_EVERYONE |
  Permission.READ_MESSAGE_HISTORY;

/** A code host may redeliver an event days later; its delivery id names the first message for a week. */
const CODEHOST_REDELIVERY_WINDOW_MS = 7 * 24 * 3600 * 1000;

export interface WebhookInput {
  name?: string;
  /** undefined keeps the avatar, null removes it. */
  avatar?: Image | null;
  channel_id?: string;
  interaction_url?: string | null;
}

export interface OutboundPolicy {
  /** INTERACTIONS_ALLOW_PRIVATE: development endpoints on loopback or private addresses. */
  allowPrivate: boolean;
  /** The outbound port's check of an interaction_url. */
  checkUrl: CheckOutboundUrl;
}

const invalidWebhookToken = () => new DomainError('unauthorized', 'INVALID_WEBHOOK_TOKEN', 'Invalid Webhook Token');

/** A guild channel the actor can see and manage webhooks in, that webhooks may post into. */
async function managedChannel(
  deps: Uses<'commands' | 'readStore' | 'clock'>,
  channelId: string,
  actorId: string,
): Promise<{ guild: GuildState; channel: ChannelData }> {
  const { guild, channel, permissions } = await channelAccess(deps, channelId, actorId);
  requirePermission(permissions, Permission.MANAGE_WEBHOOKS);
  return { guild, channel };
}

function assertWebhookChannel(channel: ChannelData, path: string) {
  if (!WEBHOOK_CHANNEL_TYPES.includes(channel.type))
    throw invalidForm([{ path, message: 'Webhooks can only post in text, announcement, forum and media channels' }]);
}

/** An interaction_url must be https and, unless development allows it, resolve only to public addresses (no SSRF). */
async function checkInteractionUrl(url: string | null | undefined, policy: OutboundPolicy) {
  if (!url) return;
  try {
    await policy.checkUrl(url, { allowPrivate: policy.allowPrivate });
  } catch (error) {
    if (error instanceof OutboundUrlError) throw invalidForm([{ path: 'interaction_url', message: error.message }]);
    throw error;
  }
}

async function run(deps: Uses<'commands' | 'clock' | 'settle'>, meta: RequestMeta, webhookId: string, command: WebhookCommand) {
  const result = await deps.commands.handle(webhookStream(webhookId), webhookDecider, command, metadata(meta, deps.clock));
  await deps.settle(result.position);
  return result;
}

async function loadWebhook(deps: Uses<'commands'>, webhookId: string) {
  return (await deps.commands.load(webhookStream(webhookId), webhookDecider)).state;
}

async function storeAvatar(deps: Uses<'blobs'>, webhookId: string, avatar: Image | null | undefined): Promise<string | null | undefined> {
  if (avatar) await deps.blobs.put(avatarKey(webhookId, avatar.hash), avatar);
  return avatar === undefined ? undefined : (avatar?.hash ?? null);
}

/** The webhook's token in clear, for its managers and for signing its deliveries. */
export function openToken(deps: Uses<'secrets'>, doc: Pick<WebhookDoc, 'sealed_token'>): string {
  return deps.secrets.open(doc.sealed_token);
}

export async function createWebhook(
  deps: Uses<'commands' | 'readStore' | 'ids' | 'blobs' | 'secrets' | 'clock' | 'settle'>,
  meta: ActorMeta,
  channelId: string,
  input: Required<Pick<WebhookInput, 'name'>> & WebhookInput,
  policy: OutboundPolicy,
) {
  const { guild, channel } = await managedChannel(deps, channelId, meta.actorId);
  assertWebhookChannel(channel, 'channel_id');
  // Counted on the read model: two creates racing at the limit may both pass, which costs nothing but a 16th webhook.
  if ((await webhookCountInChannel(deps.readStore, channelId)) >= MAX_WEBHOOKS_PER_CHANNEL) {
    throw badRequest('MAXIMUM_WEBHOOKS', `Maximum number of webhooks reached (${MAX_WEBHOOKS_PER_CHANNEL})`);
  }
  await checkInteractionUrl(input.interaction_url, policy);
  const webhookId = deps.ids.next();
  const token = randomBytes(48).toString('base64url');
  const webhook: WebhookData = {
    id: webhookId,
    guild_id: guild.id,
    channel_id: channelId,
    creator_id: meta.actorId,
    name: input.name,
    avatar: (await storeAvatar(deps, webhookId, input.avatar)) ?? null,
    interaction_url: input.interaction_url ?? null,
  };
  await run(deps, meta, webhookId, { type: 'CreateWebhook', webhook, credential: { sealedToken: deps.secrets.seal(token), tokenHash: sha256(token) } });
  return webhookId;
}

/** The webhook, for a manager: MANAGE_WEBHOOKS in its channel (404 UNKNOWN_WEBHOOK to those who cannot see it). */
export async function managedWebhook(deps: Uses<'commands' | 'readStore' | 'clock'>, webhookId: string, actorId: string): Promise<WebhookData> {
  const webhook = requireWebhook(await loadWebhook(deps, webhookId));
  try {
    await managedChannel(deps, webhook.channel_id, actorId);
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'not_found') throw unknownWebhook();
    throw error;
  }
  return webhook;
}

/** The webhooks of a channel or a guild, to those with MANAGE_WEBHOOKS there. */
export async function readWebhooks(deps: Uses<'commands' | 'readStore' | 'clock'>, of: WebhookScope, readerId: string): Promise<WebhookDoc[]> {
  const { permissions } = 'channel_id' in of ? await channelAccess(deps, of.channel_id, readerId) : await guildAccess(deps, of.guild_id, readerId);
  requirePermission(permissions, Permission.MANAGE_WEBHOOKS);
  return webhooksOf(deps.readStore, of);
}

/**
 * The clicks on a webhook's messages, newest first, to its managers. The page asked for is read only then (`page`),
 * so that to anyone else the webhook is unknown, whatever they asked.
 */
export async function readWebhookInteractions(
  deps: Uses<'commands' | 'readStore' | 'clock'>,
  webhookId: string,
  readerId: string,
  page: () => { before?: string; limit: number },
): Promise<InteractionDoc[]> {
  const webhook = await managedWebhook(deps, webhookId, readerId);
  const { before, limit } = page();
  return interactionsOfWebhook(deps.readStore, webhook.id, before, limit);
}

/**
 * The webhook a URL token opens: the token must match (compared by hash, in constant time) and the webhook's channel
 * must still exist. A wrong token answers 401 INVALID_WEBHOOK_TOKEN, as in the widely used API.
 */
export async function webhookByToken(
  deps: Uses<'commands'>,
  webhookId: string,
  token: string,
): Promise<{ webhook: WebhookData; guild: GuildState; channel: ChannelData }> {
  const state = await loadWebhook(deps, webhookId);
  const webhook = requireWebhook(state);
  const expected = Buffer.from(state.credential!.tokenHash, 'hex');
  if (!timingSafeEqual(Buffer.from(sha256(token), 'hex'), expected)) throw invalidWebhookToken();
  // A webhook of a deleted guild or channel is gone with it.
  const { state: guild } = await deps.commands.load(guildStream(webhook.guild_id), guildDecider);
  const channel = guild.status === 'active' ? guild.channels.get(webhook.channel_id) : undefined;
  if (!channel) throw unknownWebhook();
  return { webhook, guild, channel };
}

/**
 * Changes a webhook. A manager (`actorId` set) may move it to another channel they manage webhooks in; through the
 * token (`actorId` null) only the name, avatar and interaction_url change.
 */
export async function updateWebhook(
  deps: Uses<'commands' | 'readStore' | 'blobs' | 'clock' | 'settle'>,
  meta: RequestMeta,
  webhook: WebhookData,
  input: WebhookInput,
  policy: OutboundPolicy,
) {
  const settings: WebhookSettings = { name: input.name, channel_id: input.channel_id, interaction_url: input.interaction_url };
  if (input.channel_id !== undefined && input.channel_id !== webhook.channel_id) {
    if (!meta.actorId) throw invalidForm([{ path: 'channel_id', message: 'A webhook token cannot move the webhook' }]);
    const { guild, channel } = await managedChannel(deps, input.channel_id, meta.actorId);
    if (guild.id !== webhook.guild_id) throw invalidForm([{ path: 'channel_id', message: 'The channel must be in the webhook’s guild' }]);
    assertWebhookChannel(channel, 'channel_id');
  }
  await checkInteractionUrl(input.interaction_url, policy);
  const avatar = await storeAvatar(deps, webhook.id, input.avatar);
  if (avatar !== undefined) settings.avatar = avatar;
  await run(deps, meta, webhook.id, { type: 'UpdateWebhook', settings });
}

export async function deleteWebhook(deps: Uses<'commands' | 'clock' | 'settle'>, meta: RequestMeta, webhook: WebhookData) {
  await run(deps, meta, webhook.id, { type: 'DeleteWebhook' });
}

export interface ExecuteInput extends SendInput {
  username?: string;
  avatar_url?: string;
  /** A forum's webhook opens a post of this name, its message the first (domain/forum.ts). */
  thread_name?: string;
  /** The forum's tags the post it opens carries. */
  applied_tags?: string[];
}

export interface ExecuteOptions {
  /** A code host's delivery id: a redelivery of the same id posts nothing new. */
  deliveryId?: string;
  /** Post in this thread of the webhook's channel instead. */
  threadId?: string;
  /** Executed by a service adapter (code host, chat service), which cannot name a post. */
  service?: true;
}

type OpenedWebhook = Awaited<ReturnType<typeof webhookByToken>>;

/**
 * Where an execution posts: the webhook's channel, a thread of it (UNKNOWN_CHANNEL for any other thread), or, for a
 * forum's webhook, a post it opens with `thread_name` (`opening` appends it before its first message).
 */
async function executionPlace(
  deps: Uses<'commands' | 'ids' | 'clock' | 'settle'>,
  meta: RequestMeta,
  opened: OpenedWebhook,
  input: ExecuteInput,
  options: ExecuteOptions,
): Promise<{ access: MessageChannelAccess; opening?: Opening }> {
  const { webhook, guild, channel } = opened;
  const { thread_name: threadName, applied_tags: appliedTags } = input;
  const { threadId } = options;
  if (isForum(channel.type)) {
    if (options.service) throw webhookServiceInForum();
    if (threadName !== undefined && threadId) throw webhookThreadNameAndId();
    if (threadName === undefined && !threadId) throw webhookNeedsThread();
  } else if (threadName !== undefined) throw webhookThreadOutsideForum();
  if (appliedTags !== undefined && threadName === undefined) {
    throw invalidForm([{ path: 'applied_tags', message: 'Tags are applied to the post an execution opens with thread_name' }]);
  }
  if (threadName !== undefined) {
    const forum = { guild, channel, permissions: WEBHOOK_PERMISSIONS };
    return preparePost(deps, { ...meta, actorId: webhook.id }, forum, webhook.id, { name: threadName, applied_tags: appliedTags }, true);
  }
  const place = { guildId: guild.id, permissions: WEBHOOK_PERMISSIONS, guild, dm: null };
  if (!threadId) return { access: { ...place, channelId: channel.id, type: channel.type } };
  const thread = await loadThread(deps, threadId);
  if (thread.status !== 'active' || thread.thread!.parent_id !== channel.id) throw unknownChannel();
  return { access: { ...place, channelId: threadId, type: thread.thread!.type, thread } };
}

/** Executes the webhook: a message in its channel, by the webhook, with the name and avatar overrides given. */
export async function executeWebhook(
  deps: Uses<'commands' | 'readStore' | 'ids' | 'blobs' | 'clock' | 'settle'>,
  meta: RequestMeta,
  opened: OpenedWebhook,
  input: ExecuteInput,
  files: UploadedFile[],
  options: ExecuteOptions = {},
): Promise<MessageDoc> {
  const { webhook } = opened;
  const { thread_name: _name, applied_tags: _tags, ...message } = input;
  const { access, opening } = await executionPlace(deps, meta, opened, input, options);
  const by: Authorship = {
    author: {
      id: webhook.id,
      username: input.username ?? webhook.name,
      discriminator: '0000',
      global_name: null,
      avatar: input.avatar_url ? null : webhook.avatar,
      bot: true,
      public_flags: 0,
      ...(input.avatar_url ? { avatar_url: input.avatar_url } : {}),
    },
    webhookId: webhook.id,
    components: true,
    opens: opening,
  };
  const send: SendInput = { ...message };
  if (options.deliveryId) {
    send.nonce = `codehost:${options.deliveryId}`;
    by.nonceWindowMs = CODEHOST_REDELIVERY_WINDOW_MS;
  }
  return postMessage(deps, { ...meta, actorId: webhook.id }, access, send, files, by);
}
