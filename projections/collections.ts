// The name of every read-model collection, declared once. Projections write them (their WriteOps, `collections` and
// index declarations) and the typed queries of <module>.queries.ts read them, all through these constants: no other
// file names a collection by string (test/structure/collections.test.ts). Imports nothing, so any module may use it.

export const APPLICATIONS = 'applications';
export const APPLICATION_COMMANDS = 'application_commands';
export const AUDIT_LOG_ENTRIES = 'audit_log_entries';
export const BANS = 'bans';
/** DM and group DM calls, one per channel (calls.ts). */
export const CALLS = 'calls';
/** Guild channels (channels.ts) and DMs (dms.ts) share it; messages.ts keeps last_message_id and last_pin_timestamp. */
export const CHANNELS = 'channels';
/** A guild's custom emojis (emojis.ts). */
export const EMOJIS = 'emojis';
export const GATEWAY_SESSIONS = 'gateway_sessions';
export const GUILDS = 'guilds';
export const INTERACTIONS = 'interactions';
export const INVITES = 'invites';
export const LOGINS = 'logins';
export const MEMBERS = 'members';
/** When each member was last active in their guild (memberActivity.ts): what a prune reads. */
export const MEMBER_ACTIVITY = 'member_activity';
export const MESSAGES = 'messages';
/** OAuth2 access tokens, apart from `tokens`: the gateway's IDENTIFY looks only there, so no access token opens a session. */
export const OAUTH2_TOKENS = 'oauth2_tokens';
export const REACTIONS = 'reactions';
export const ROLES = 'roles';
/** A guild's stickers (stickers.ts). */
export const STICKERS = 'stickers';
/** Threads (threads.ts), apart from `channels`: a guild's channel list and GUILD_CREATE do not carry them. */
export const THREADS = 'threads';
/** Who has joined which thread (threads.ts). */
export const THREAD_MEMBERS = 'thread_members';
export const TOKENS = 'tokens';
export const USERS = 'users';
/** Who is in which guild voice channel (voiceStates.ts). */
export const VOICE_STATES = 'voice_states';
export const WEBHOOKS = 'webhooks';
