// Stream ids of the aggregates, in one place so command modules (and process workflows) can name each other's streams.
import type { SlowmodeAction } from '../domain/slowmode.js';
import { type SecretBox, sha256 } from '../ports/secrets.js';

export const guildStream = (guildId: string) => `guild-${guildId}`;
/** A guild's emojis and stickers, beside the guild's own stream (domain/guildExpressions.ts). */
export const guildExpressionsStream = (guildId: string) => `guild-expressions-${guildId}`;
/** Who is in which voice channel of a guild (domain/voiceState.ts). */
export const guildVoiceStream = (guildId: string) => `guild-voice-${guildId}`;
export const inviteStream = (code: string) => `invite-${code}`;
export const vanityStream = (code: string) => `vanity-${code}`;
export const userStream = (userId: string) => `user-${userId}`;
export const applicationStream = (applicationId: string) => `application-${applicationId}`;
export const oauth2GrantStream = (grantId: string) => `oauth2-grant-${grantId}`;
export const applicationCommandsStream = (applicationId: string, guildId: string | null) => `application-commands-${applicationId}-${guildId ?? 'global'}`;
export const messageStream = (messageId: string) => `message-${messageId}`;
/** What auto-moderation did about one send or edit (domain/autoModerationExecution.ts). */
export const autoModerationExecutionStream = (executionId: string) => `auto-moderation-execution-${executionId}`;
export const pinStream = (channelId: string) => `channel-pins-${channelId}`;
/** A thread and its members (domain/thread.ts); one started from a message has the message's id. */
export const threadStream = (threadId: string) => `thread-${threadId}`;
/** A click on a webhook's message and its delivery to the webhook's interaction_url (domain/interaction.ts). */
export const interactionStream = (interactionId: string) => `interaction-${interactionId}`;
/**
 * A command or component interaction with a bot (domain/commandInteraction.ts): a category of its own, so an id of
 * the other kind names no interaction here. Those made before it had one are on interactionStream.
 */
export const commandInteractionStream = (interactionId: string) => `command-interaction-${interactionId}`;
export const groupDmStream = (channelId: string) => `group-dm-${channelId}`;
/** A DM's or group DM's call: ringing, voice states, region (domain/call.ts). */
export const callStream = (channelId: string) => `call-${channelId}`;
export const webhookStream = (webhookId: string) => `webhook-${webhookId}`;
/**
 * A username's and an email address's claims (domain/usernameClaim.ts, domain/emailClaim.ts), named by a keyed hash:
 * a stream name is no personal data to whoever reads the log without the service's key. commands/claims.ts uses them.
 */
export const usernameStream = (keys: Pick<SecretBox, 'fingerprint'>, username: string) => `username-${keys.fingerprint(`username:${username.toLowerCase()}`)}`;
/** The keyed hash that names an email's claim stream, which its events carry as `emailHash`. */
export const emailFingerprint = (keys: Pick<SecretBox, 'fingerprint'>, email: string) => keys.fingerprint(`email:${email.toLowerCase()}`);
export const emailStream = (keys: Pick<SecretBox, 'fingerprint'>, email: string) => `email-${emailFingerprint(keys, email)}`;
/** Where earlier versions put those claims: a plain SHA-256, which guessing reverses. Their claims are still held there. */
export const legacyUsernameStream = (username: string) => `username-${sha256(username.toLowerCase())}`;
export const legacyEmailStream = (email: string) => `email-${sha256(email.toLowerCase())}`;
export const bulkDeleteStream = (channelId: string) => `channel-bulk-deletes-${channelId}`;
export const nonceStream = (channelId: string, authorId: string, nonce: string) => `message-nonce-${sha256(`${channelId}:${authorId}:${nonce}`)}`;
/** One user's messages, or the threads they start, in one slowed channel (domain/slowmode.ts). */
export const slowmodeStream = (channelId: string, userId: string, action: SlowmodeAction) =>
  action === 'thread' ? `slowmode-threads-${channelId}-${userId}` : `slowmode-${channelId}-${userId}`;
export const sessionStartsStream = (userId: string) => `gateway-session-starts-${userId}`;
