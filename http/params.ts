// Path and query parameters shared by the guild-side routes (snowflake pagination is projections/paging.ts, behind the queries).
import { snowflakeSchema } from './validation.js';

export const guildParams = { type: 'object', properties: { guildId: snowflakeSchema }, required: ['guildId'] } as const;
export const channelParams = { type: 'object', properties: { channelId: snowflakeSchema }, required: ['channelId'] } as const;

/** DELETE of an emoji or a sticker: `purge=true` also deletes its stored image. */
export const purgeQuery = { type: 'object', properties: { purge: { type: 'boolean', default: false } } } as const;
