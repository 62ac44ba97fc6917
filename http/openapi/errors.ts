// The refusals the API answers, by code: the status each is answered with (http/errors.ts maps the domain's kinds)
// and what it means. Entries name codes from here, so a typo does not compile; test/http/openapi.test.ts checks that
// every code here is one the code base gives.

export const ERRORS = {
  // 400
  INVALID_FORM_BODY: [400, 'A field, parameter or header is missing, of the wrong type or out of bounds; `errors` lists each problem at its path.'],
  INVALID_JSON: [400, 'The body (or payload_json) is not JSON.'],
  INVALID_MULTIPART: [400, 'The multipart body could not be read.'],
  TOO_MANY_ATTACHMENTS: [400, 'More than 10 files.'],
  NOT_AN_IMAGE: [400, 'The image is not a PNG, JPEG, WebP or GIF, or cannot be decoded (or, on the CDN, an attachment to resize is no image).'],
  IMAGE_TOO_LARGE: [400, 'The image’s dimensions are too large to process.'],
  CANNOT_SEND_EMPTY_MESSAGE: [400, 'A message needs content, an embed, an attachment or a component.'],
  CANNOT_SEND_IN_NON_TEXT_CHANNEL: [400, 'The channel does not take messages.'],
  CANNOT_SEND_IN_FORUM_CHANNEL: [
    400,
    'A forum or media channel takes posts, not messages (40058 under /api/v9 and /api/v10): open a post with POST /channels/{id}/threads.',
  ],
  AUTOMOD_BLOCKED: [400, 'An auto-moderation rule of the guild blocked the message (200000 under /api/v9 and /api/v10, as the widely used API numbers it).'],
  CANNOT_EXECUTE_ON_CHANNEL_TYPE: [400, 'The action does not apply to this kind of channel: voice regions of a text channel, a call outside DMs.'],
  CANNOT_BULK_DELETE_IN_DM: [400, 'Messages in DMs cannot be bulk deleted.'],
  MAX_PINS: [400, 'The channel has the most pins it can have.'],
  MAX_REACTIONS: [400, 'The message has the most different reactions it can have.'],
  MAX_RECIPIENTS: [400, 'The group DM has the most participants it can have.'],
  MAXIMUM_WEBHOOKS: [400, 'The channel has the most webhooks it can have.'],
  MAX_APPLICATION_COMMANDS: [400, 'The scope has the most commands of this type it can have.'],
  OWNER_CANNOT_LEAVE: [400, 'The owner cannot leave the guild: transfer ownership or delete it.'],
  GUILD_OWNERSHIP: [400, 'The account owns a guild: transfer ownership of it or delete it before deleting the account.'],
  APPLICATION_OWNERSHIP: [400, 'The account owns an application: delete it before deleting the account.'],
  INVALID_ROLE: [400, 'The @everyone role cannot be deleted.'],
  BOT_CANNOT_LOG_IN: [400, 'Bot users authenticate with their bot token.'],
  NOT_A_BOT: [400, 'Only bot users have bot tokens.'],
  UNKNOWN_COMPONENT: [400, 'The message has no component with this custom_id.'],
  COMPONENT_DISABLED: [400, 'The component is disabled.'],
  COMPONENT_NOT_INTERACTIVE: [400, 'The component type cannot be used.'],
  INTERACTION_ALREADY_ACKNOWLEDGED: [400, 'The interaction has already been answered.'],
  FAILED_TO_BAN_USERS: [400, 'A bulk ban could ban none of its users (the widely used API’s 500000): nothing was done.'],
  THREAD_ARCHIVED: [400, 'Operation is not allowed on an archived thread (the widely used API’s 50083): unarchive it first.'],
  THREAD_ALREADY_CREATED: [400, 'A thread has already been created for this message (160004).'],
  TAG_REQUIRED: [400, 'The forum has REQUIRE_TAG: a post carries at least one of its tags in `applied_tags` (40067 under /api/v9 and /api/v10).'],
  MAX_PINNED_THREADS: [400, 'The forum has its pinned post already: unpin it first (30047 under /api/v9 and /api/v10).'],
  WEBHOOK_FORUM_THREAD_REQUIRED: [400, 'A forum’s webhook posts with `thread_name` (a new post) or `thread_id` (220001 under /api/v9 and /api/v10).'],
  WEBHOOK_FORUM_THREAD_NAME_AND_ID: [400, 'A forum’s webhook posts with `thread_name` or `thread_id`, not both (220002).'],
  WEBHOOK_THREADS_ONLY_IN_FORUMS: [400, '`thread_name` opens a post: only a forum’s or media channel’s webhook takes it (220003).'],
  WEBHOOK_SERVICES_NOT_IN_FORUMS: [400, 'The code-host and chat-service adapters cannot post through a forum’s webhook (220004).'],
  // 401
  UNAUTHORIZED: [401, 'No token, or a token that does not authenticate (clients drop their token on a 401).'],
  INVALID_WEBHOOK_TOKEN: [401, 'The token in the path is not this webhook’s (or interaction’s).'],
  // 403
  MISSING_PERMISSIONS: [403, 'The caller lacks a permission the action needs, or the target is not below them in the role hierarchy.'],
  MISSING_ACCESS: [403, 'The caller may not act on this application or in this place, or is timed out in the guild (they may only read until it ends).'],
  CANNOT_SEND_MESSAGES_TO_USER: [403, 'The other side of the DM deleted their account (50007 under /api/v9 and /api/v10): nothing can be sent to it.'],
  BOTS_NOT_ALLOWED: [403, 'Bots cannot use this endpoint: it takes a person’s session.'],
  BOTS_ONLY: [403, 'Only a bot token names an application here.'],
  USER_BANNED: [403, 'The user is banned from the guild.'],
  INVALID_OAUTH2_ACCESS_TOKEN: [403, 'The access token is unknown, revoked or expired, another user’s or application’s, or lacks guilds.join.'],
  CANNOT_EDIT_MESSAGE_BY_OTHER: [403, 'Only a message’s author can edit it.'],
  MAXIMUM_EMOJIS_REACHED: [403, 'The guild has the most emojis of this kind (static or animated) it can have.'],
  MAXIMUM_STICKERS_REACHED: [403, 'The guild has the most stickers it can have.'],
  THREAD_LOCKED: [403, 'Thread is locked (160005): only MANAGE_THREADS holders may change it.'],
  // 404
  UNKNOWN_APPLICATION: [404, 'Unknown application (or not one of the caller’s).'],
  UNKNOWN_APPLICATION_COMMAND: [404, 'Unknown application command in this scope.'],
  UNKNOWN_ATTACHMENT: [404, 'Unknown attachment.'],
  UNKNOWN_AVATAR: [404, 'Unknown avatar.'],
  UNKNOWN_BANNER: [404, 'Unknown banner.'],
  UNKNOWN_BAN: [404, 'The user is not banned.'],
  UNKNOWN_CHANNEL: [404, 'Unknown channel, or one the caller cannot see.'],
  UNKNOWN_EMOJI: [404, 'Unknown custom emoji.'],
  UNKNOWN_AUTO_MODERATION_RULE: [404, 'Unknown auto-moderation rule.'],
  UNKNOWN_GUILD: [404, 'Unknown guild, or one the caller is not a member of.'],
  UNKNOWN_ICON: [404, 'Unknown icon.'],
  UNKNOWN_INTERACTION: [404, 'Unknown interaction.'],
  UNKNOWN_INVITE: [404, 'Unknown, expired or used-up invite.'],
  UNKNOWN_MEMBER: [404, 'The user is not a member of the guild.'],
  UNKNOWN_MESSAGE: [404, 'Unknown message, or one the caller cannot read.'],
  UNKNOWN_ROLE: [404, 'Unknown role.'],
  UNKNOWN_SPLASH: [404, 'Unknown splash.'],
  UNKNOWN_STICKER: [404, 'Unknown sticker.'],
  UNKNOWN_USER: [404, 'Unknown user.'],
  UNKNOWN_WEBHOOK: [404, 'Unknown webhook, or one the caller does not manage.'],
  METRICS_DISABLED: [404, 'METRICS_TOKEN is not set: /metrics is off.'],
  // 409
  APPLICATION_HAS_BOT: [409, 'The application already has a bot: reset its token instead.'],
  // 413
  REQUEST_ENTITY_TOO_LARGE: [413, 'The body is larger than the limit (JSON_BODY_LIMIT, or the multipart cap).'],
  FILE_TOO_LARGE: [413, 'A file is larger than 25 MiB.'],
  // 415
  UNSUPPORTED_MEDIA_TYPE: [415, 'The body is not JSON (a form or multipart body sent to a route that takes JSON).'],
  // 424
  INTERACTION_FAILED: [
    424,
    'The application’s interactions endpoint did not answer within 3 seconds, answered other than 2xx, or answered no valid response: nothing was posted.',
  ],
  // 429
  RATE_LIMITED: [429, 'The route’s bucket is empty for now: wait Retry-After seconds (X-RateLimit-Scope: user).'],
  SLOWMODE_RATE_LIMITED: [
    429,
    'The channel is in slowmode and the caller sent there less than rate_limit_per_user seconds ago: wait retry_after seconds (X-RateLimit-Scope: user; 20016 under /api/v9 and /api/v10).',
  ],
  IMAGE_QUEUE_FULL: [429, 'Too many images are being processed: try again in a second (X-RateLimit-Scope: shared).'],
} as const satisfies Record<string, readonly [number, string]>;

export type ErrorCode = keyof typeof ERRORS;
