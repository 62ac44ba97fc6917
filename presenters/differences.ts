// Where Parley's objects differ from the widely used API's, as discord-api-types states that API, declared here once:
// each with the spec's words where the spec makes the difference, or saying that the spec is silent where Parley's own
// data does. Presenters return these types (or the API's own), so a field that is neither the API's nor declared here
// is a compile error.
import type {
  APIThreadChannel,
  APIApplication,
  APIApplicationCommand,
  APIAuditLogEntry,
  APIBaseInteraction,
  APIDMChannel,
  APIEmoji,
  APIExtendedInvite,
  APIGroupDMChannel,
  APIGuild,
  APIInteractionDataResolved,
  APIMessage,
  APISticker,
  APIUser,
  APIVoiceState,
  APIWebhook,
  GatewayGuildBanModifyDispatchData,
  GatewayGuildCreateDispatchData,
  GatewayGuildMembersChunkDispatchData,
  GatewayGuildMemberRemoveDispatchData,
  GatewayGuildStickersUpdateDispatchData,
  GatewayMessageCreateDispatchData,
  GatewayPresenceUpdateDispatchData,
  PresenceUpdateReceiveStatus,
  GatewayReadyDispatchData,
  GatewayVoiceServerUpdateDispatchData,
  InteractionType,
  RESTPostAPIInteractionCallbackWithResponseResult,
} from 'discord-api-types/v10';
import type { ApplicationCommandOption } from '../domain/applicationCommand.js';
import type { AutocompleteChoice, InvokedCommand, Modal, SubmittedModal, UsedComponent } from '../domain/commandInteraction.js';
import type { Component } from '../domain/components.js';
import type { Change } from '../domain/guildState.js';
import type { GuildChannelObject } from './channels.js';
import type { MemberObject } from './members.js';

/**
 * A custom emoji. The spec's Emoji table adds what the API leaves to the CDN and to audit logs:
 * "image | string | URL of the image", "guild_id | string | owning guild", "created_at | string (ISO 8601) | creation time".
 */
export type ParleyEmoji = APIEmoji & { image: string; guild_id: string; created_at: string };

/**
 * A guild sticker. The spec's Sticker table answers its tags as a list where the API has one string:
 * "tags | array of strings in responses | sent as one comma-separated string"; and adds "image_url | string | address
 * of the stored image", "created_at | string (ISO 8601) | present on create and list", "updated_at | string (ISO 8601)
 * | present on update".
 */
export type ParleySticker = Omit<APISticker, 'tags'> & { tags: string[]; image_url: string; created_at: string; updated_at?: string };

/**
 * A guild, with its custom emojis and stickers in Parley's form (above). The spec's Guild lists "`member_count`
 * (integer)" among the "Fields given", so every guild object carries it, not only GUILD_CREATE. Its locale is the
 * spec's free "locale | string | preferred language locale" (any 2 to 10 characters, http/routes/guilds.ts), not one of
 * the API's named locales. It has no hub_type: Student Hubs are the API's, and of the guild the spec says "Other guild
 * fields: not shown".
 */
export type ParleyGuild = Omit<APIGuild, 'emojis' | 'stickers' | 'preferred_locale' | 'hub_type'> & {
  emojis: ParleyEmoji[];
  stickers: ParleySticker[];
  preferred_locale: string;
  member_count: number;
};

/**
 * A message. Its components are the spec's, not the API's stricter union: a button's "custom_id | string | for styles
 * 1-4" and "url | string | for style 5" are one shape, and "Types 4 (modal submit) and 5-8 (user, role, mentionable,
 * channel selects) are accepted by the schema but not rendered; they are passed through opaquely to the bot."
 */
export type ParleyMessage = Omit<APIMessage, 'components' | 'referenced_message'> & {
  components?: Component[];
  referenced_message?: ParleyMessage | null;
};

/**
 * A DM. The spec names "DM" and "group DM" among the channel kinds and gives no DM fields; a DM is named by its
 * recipient, so it has no `name` (the API sends `name: null`).
 */
export type ParleyDMChannel = Omit<APIDMChannel, 'name'>;

/**
 * A group DM. Its owner is typed as the read model keeps it for every DM channel, nullable (a 1:1 DM has none); a
 * group DM always has its creator there.
 */
export type ParleyGroupDMChannel = Omit<APIGroupDMChannel, 'owner_id'> & { owner_id: string | null };

/**
 * An invite, with its metadata. The spec's created or listed invite names its channel and inviter by id: "Created or
 * listed channel invite: `code`, `channel_id`, `inviter_id`, `max_uses`, `max_age`, `uses`"; a vanity code seen as an
 * invite has neither inviter nor creation time ("Vanity URL: `code` (string), `uses` (integer), `guild_id` (string)"),
 * so `created_at` may be absent and `inviter_id` null. A pack invite (the spec's "POST `/packs/:pack_id/invites`") names
 * its pack: "The set of stickers of a guild is its sticker pack."
 */
export type ParleyInvite = Omit<APIExtendedInvite, 'created_at'> & {
  created_at?: string;
  guild_id: string;
  channel_id: string | null;
  inviter_id: string | null;
  pack_id: string | null;
  pack?: { id: string; name: string; guild_id: string };
};

/**
 * An audit log entry, with the spec's own field, "timestamp | string (ISO 8601) | when it happened", and its changes as
 * the spec has them, any key with any values ("Change: `key` (string, name of changed field), `old_value` (any),
 * `new_value` (any)"), where the API types each key's values.
 */
export type ParleyAuditLogEntry = Omit<APIAuditLogEntry, 'changes'> & { changes?: Change[]; timestamp: string };

/**
 * An application command. A global one answers "guild_id? | snowflake | set when guild-scoped, null for global"; its
 * options are the spec's "Command option" table, one shape for every option type (the API's union tells them apart);
 * `integration_types` is null when the command was registered without them, as sent.
 */
export type ParleyApplicationCommand = Omit<APIApplicationCommand, 'guild_id' | 'options' | 'integration_types'> & {
  guild_id: string | null;
  options: ApplicationCommandOption[];
  integration_types: APIApplicationCommand['integration_types'] | null;
};

/**
 * An application (presenters/applications.ts). The spec shows no application object. Parley's names its owner by id
 * and its OAuth2 Client ID, which "OAuth2 applications ... receive" (the spec), for its own account routes; it has no
 * `flags_new`, the flags again as a string, which `flags` already carries.
 */
export type ParleyApplication = Omit<APIApplication, 'flags_new'> & { owner_id: string; client_id: string };

/**
 * A DM's call, as CALL_CREATE and CALL_UPDATE carry it: the widely used API has these only for user accounts, so
 * discord-api-types has no type for them. Its voice states have no guild (a DM has none).
 */
export interface ParleyCall {
  channel_id: string;
  ringing: string[];
  region: string | null;
  voice_states: APIVoiceState[];
}

/**
 * READY (gateway/server.ts builds it). Parley's accounts are people as well as bots ("true for bot accounts", the
 * spec's User), and a person's session has no application, which the API's READY, sent only to bots, always has. Of
 * the gateway the spec says "all gateway payloads: not shown".
 */
export type ParleyReady = Omit<GatewayReadyDispatchData, 'application'> & {
  application?: Pick<ParleyApplication, 'id' | 'flags'>;
  /** What the API sends a user account's session as well, which Parley's people are: their DMs and group DMs. */
  private_channels: (ParleyDMChannel | ParleyGroupDMChannel)[];
  /** The same, empty: Parley has no relationships, user settings, nor presences at READY (GUILD_CREATE has them). */
  relationships: never[];
  user_settings: Record<string, never>;
  presences: never[];
  /** Which gateway node is serving, as the API sends it. */
  _trace: string[];
};

/**
 * What an interaction a bot receives carries: the command invoked, its options as invoked (one shape for every option
 * type, as the spec's "Command option" table has them, where the API's union tells them apart) and what they name; or
 * the component used.
 */
/** What an interaction names, resolved as the API's; a message command's target message is Parley's message (above). */
export type ParleyInteractionResolved = Omit<APIInteractionDataResolved, 'messages'> & { messages?: Record<string, ParleyMessage> };
export type ParleyInteractionData =
  | (Omit<InvokedCommand, 'resolved' | 'guild_id' | 'targetMessage'> & { guild_id?: string; resolved?: ParleyInteractionResolved })
  | (Omit<UsedComponent, 'message' | 'resolved'> & { resolved?: ParleyInteractionResolved })
  | Pick<SubmittedModal, 'custom_id' | 'components'>;

/** The API's interaction of the kinds a bot receives from Parley: a command invoked or autocompleted, a component used, a modal submitted. */
type APIBotInteraction = APIBaseInteraction<
  InteractionType.ApplicationCommand | InteractionType.MessageComponent | InteractionType.ApplicationCommandAutocomplete | InteractionType.ModalSubmit,
  ParleyInteractionData
>;

/**
 * An interaction as its bot receives it in INTERACTION_CREATE: its channel and message are Parley's (above), and its
 * guild's locale is the spec's free "locale | string | preferred language locale", not one of the API's named
 * locales; the user's is one of those (domain/user.ts), kept a string as the interactions recorded carry it.
 */
export type ParleyInteraction = Omit<APIBotInteraction, 'guild' | 'channel' | 'locale' | 'guild_locale' | 'message' | 'member'> & {
  guild?: Omit<NonNullable<APIBotInteraction['guild']>, 'locale'> & { locale: string };
  /** The invoking member as every other member object is (MemberObject), with their permissions in the channel. */
  member?: MemberObject & { permissions: string };
  channel: ParleyDMChannel | ParleyGroupDMChannel | ((GuildChannelObject | APIThreadChannel) & { permissions: string });
  locale: string;
  guild_locale?: string;
  message?: ParleyMessage;
};

/** The answer of an interaction response made ?with_response=true, with the message it made or updated as Parley's. */
export type ParleyInteractionCallback = Omit<RESTPostAPIInteractionCallbackWithResponseResult, 'resource'> & {
  resource: Omit<NonNullable<RESTPostAPIInteractionCallbackWithResponseResult['resource']>, 'message'> & { message?: ParleyMessage };
};

/**
 * The dispatches whose data is not the API's as discord-api-types has it, each saying why; gateway/protocol.ts types
 * every other dispatch with the API's own data type. Of the gateway the spec says "all gateway payloads: not shown".
 */
export interface ParleyDispatchData {
  /** A session's start (ParleyReady, above). */
  READY: ParleyReady;
  /** A resumed session: the serving node in `_trace`, as READY carries it (discord-api-types gives RESUMED no data). */
  RESUMED: { _trace: string[] };
  /** A guild as a member's session learns it: Parley's guild, channels and presences (ParleyGuildCreate). */
  GUILD_CREATE: ParleyGuildCreate;
  /** A guild changed: Parley's guild. */
  GUILD_UPDATE: ParleyGuild;
  /** A member gone, named as the read model names them (ParleyNamedUser). */
  GUILD_MEMBER_REMOVE: WithNamedUser<GatewayGuildMemberRemoveDispatchData, 'user'>;
  /** A new audit entry, as the audit log route presents it, with its guild. */
  GUILD_AUDIT_LOG_ENTRY_CREATE: ParleyAuditLogEntry & { guild_id: string };
  /** A ban: the same. */
  GUILD_BAN_ADD: WithNamedUser<GatewayGuildBanModifyDispatchData, 'user'>;
  /** A ban lifted: the same. */
  GUILD_BAN_REMOVE: WithNamedUser<GatewayGuildBanModifyDispatchData, 'user'>;
  /** A guild's stickers, each in Parley's form (ParleySticker, above). */
  GUILD_STICKERS_UPDATE: Omit<GatewayGuildStickersUpdateDispatchData, 'stickers'> & { stickers: ParleySticker[] };
  /** An interaction for a bot: Parley's (ParleyInteraction, above). */
  INTERACTION_CREATE: ParleyInteraction;
  /**
   * To the sessions of the user who started an interaction (the widely used API's client events, which
   * discord-api-types, typing bot sessions, leaves out): the application acknowledged it, or it failed (`reason`: the
   * endpoint's failure, or `not_acknowledged` on the gateway). `nonce` is the one the user's POST /interactions sent.
   */
  INTERACTION_SUCCESS: { id: string; nonce?: string };
  INTERACTION_FAILURE: { id: string; nonce?: string; reason: string };
  /**
   * A modal a bot showed, to the sessions of the user whose interaction it answers: a user-client dispatch the widely
   * used API's client receives and discord-api-types (a bot library's types) leaves out. `id` is the interaction that
   * showed it, the `data.id` its submit names; `nonce` is the one the user's client sent with the interaction.
   */
  INTERACTION_MODAL_CREATE: Modal & { id: string; application_id: string; channel_id: string; guild_id?: string; nonce?: string };
  /** A bot's autocomplete choices, to the sessions of the user who is typing: the same kind of user-client dispatch. */
  APPLICATION_COMMAND_AUTOCOMPLETE_RESPONSE: { id: string; application_id: string; choices: AutocompleteChoice[]; nonce?: string };
  /** A member's presence: Parley's (ParleyPresence). */
  PRESENCE_UPDATE: ParleyPresence & { guild_id: string };
  /** A DM's call begun (ParleyCall, above). */
  CALL_CREATE: ParleyCall;
  /** A DM's call going on: the same. */
  CALL_UPDATE: ParleyCall;
  /** A DM's call ended: which channel's. */
  CALL_DELETE: { channel_id: string };
  /** Where a session's client would connect for media: a guild's voice, or a DM's call, which has no guild but a channel. */
  VOICE_SERVER_UPDATE: GatewayVoiceServerUpdateDispatchData | (Omit<GatewayVoiceServerUpdateDispatchData, 'guild_id'> & { guild_id: null; channel_id: string });
  /** Members asked for (op 8), with their presences as Parley's (ParleyPresence). */
  GUILD_MEMBERS_CHUNK: Omit<GatewayGuildMembersChunkDispatchData, 'presences'> & { presences?: ParleyPresence[] };
  /** A message created, with its components as Parley's message has them (ParleyMessage, above). */
  MESSAGE_CREATE: ParleyMessageDispatchData;
  /** A message edited: the same. */
  MESSAGE_UPDATE: ParleyMessageDispatchData;
  /**
   * A channel opened. The API sends bots guild channels only; Parley's accounts are people as well as bots, and a
   * person's sessions learn of the DMs and group DMs they are in: "channels of several kinds (guild text, guild
   * voice, DM, group DM, category and others)". A guild channel has the fields of its type in one shape
   * (GuildChannelObject, presenters/channels.ts), where the API's union tells the types apart.
   */
  CHANNEL_CREATE: GuildChannelObject | ParleyDMChannel | ParleyGroupDMChannel;
  /** A channel changed: the same, a group DM renamed. */
  CHANNEL_UPDATE: GuildChannelObject | ParleyDMChannel | ParleyGroupDMChannel;
  /**
   * A channel gone: the same, a DM closed; and to a recipient removed from a group DM, only which channel it was (its
   * id and type), since they no longer see it.
   */
  CHANNEL_DELETE: GuildChannelObject | ParleyDMChannel | ParleyGroupDMChannel | Pick<ParleyDMChannel | ParleyGroupDMChannel, 'id' | 'type'>;
  /**
   * A recipient added to a group DM, to its other recipients: the spec's "group-DM recipients", which the API has only
   * for user accounts, so discord-api-types has no type for it.
   */
  CHANNEL_RECIPIENT_ADD: ParleyRecipientChange;
  /** A recipient removed from a group DM, to its recipients: the same. */
  CHANNEL_RECIPIENT_REMOVE: ParleyRecipientChange;
}

/**
 * GUILD_CREATE: the API's extra fields on Parley's guild (ParleyGuild), its channels as CHANNEL_CREATE has them, and
 * its presences as Parley's, which name no guild here: the guild is the dispatch's.
 */
export type ParleyGuildCreate = Omit<GatewayGuildCreateDispatchData, keyof APIGuild | 'channels' | 'presences'> &
  ParleyGuild & { channels: GuildChannelObject[]; presences: ParleyPresence[] };

/**
 * A user a dispatch names, or its id alone should the read model not have the user (gateway/guilds.ts userPartial).
 * The projector builds a dispatch once the read models include its event, and a user document is never removed (an
 * erased account stays, as "Deleted User"), so the id alone is not expected; the spec is silent.
 */
export type ParleyNamedUser = APIUser | { id: string };

/** T with its user field K as ParleyNamedUser, always given. */
type WithNamedUser<T, K extends keyof T> = Omit<T, K> & Record<K, ParleyNamedUser>;

/**
 * A presence as others see it (gateway/presence.ts): its statuses as the strings the API's enums stand for, its user
 * by id, and its activities as the session set them, within the fields and bounds gateway/presence.ts keeps (a name,
 * a type, a state, an url and when it was set), where the API types every field an activity may have.
 */
export type ParleyPresence = Omit<GatewayPresenceUpdateDispatchData, 'user' | 'status' | 'activities' | 'client_status' | 'guild_id'> & {
  user: { id: string };
  status: `${PresenceUpdateReceiveStatus}`;
  activities: Record<string, unknown>[];
  client_status: { web?: `${PresenceUpdateReceiveStatus}` };
};

/** MESSAGE_CREATE and MESSAGE_UPDATE: the API's message with its gateway fields, with Parley's components. */
export type ParleyMessageDispatchData = Omit<GatewayMessageCreateDispatchData, 'components' | 'referenced_message'> &
  Pick<ParleyMessage, 'components' | 'referenced_message'>;

/** A group DM's recipient added or removed. */
export interface ParleyRecipientChange {
  channel_id: string;
  user: APIUser;
}

/**
 * A webhook (presenters/webhooks.ts). Parley's own field: `interaction_url`, the https address that receives the
 * clicks on the components of the messages a webhook sent (the spec plans interactions for webhooks; the widely used
 * API sends them to applications, which a webhook here has none of: `application_id` is always null).
 */
export type ParleyWebhook = APIWebhook & { interaction_url?: string | null };
