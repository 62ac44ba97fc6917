// Invites and vanity codes.
import { integer, nullable, object, snowflakeSchema, string } from './schema.js';

export const VanityUrl = object('A guild’s vanity code and its uses.', { code: nullable(string), uses: integer, guild_id: snowflakeSchema });
