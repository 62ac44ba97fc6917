// Accounts and applications outside the spec, in the widely used API's shapes: sessions, applications
// (presenters/applications.ts) and their bots, the credentials shown once, and the OAuth2 token endpoints' answers.
import { boolean, integer, nullable, object, snowflakeSchema, string } from './schema.js';
import { User } from './users.js';

export const Session = object('A session token for the `Bearer` scheme.', { token: string, user_id: snowflakeSchema });

export const Application = object(
  'An application in the widely used API’s shape; `verify_key` is the public half of its Ed25519 key in hex, which its interaction deliveries are signed with.',
  {
    id: snowflakeSchema,
    name: string,
    icon: nullable(string),
    description: string,
    owner_id: snowflakeSchema,
    client_id: snowflakeSchema,
    verify_key: string,
    flags: integer,
    bot_public: boolean,
  },
  { approximate_guild_count: integer, bot: User, owner: User, interactions_endpoint_url: nullable(string) },
);

export const ApplicationWithSecret = object('A new application, with its client secret (shown once).', {
  id: snowflakeSchema,
  name: string,
  client_secret: string,
});

export const BotUser = object('The application’s new bot user with its token (shown once).', {
  id: snowflakeSchema,
  username: string,
  discriminator: string,
  bot: { const: true },
  token: string,
});

export const ClientSecret = object('The application’s new OAuth2 client secret (shown once).', { client_secret: string });

export const BotToken = object('The bot’s new token (the old one stops working).', { token: string });

export const OAuth2Token = object('OAuth2 tokens (RFC 6749 §5.1).', {
  access_token: string,
  token_type: { const: 'Bearer' },
  expires_in: integer,
  refresh_token: string,
  scope: string,
});

export const OAuth2Refusal = object('A refusal of the token endpoints (RFC 6749 §5.2), which OAuth2 libraries read.', {
  error: { type: 'string', enum: ['invalid_request', 'invalid_client', 'invalid_grant', 'invalid_scope', 'unsupported_grant_type'] },
  error_description: string,
});
