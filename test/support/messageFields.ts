// A message as its events carry it, with every field literal: specs override what their rule is about.
import type { MessageFields } from '../../domain/message.js';

export function messageFields(overrides: Partial<MessageFields> & Pick<MessageFields, 'author'>): MessageFields {
  return {
    id: '100',
    channel_id: '10',
    guild_id: '5',
    webhook_id: null,
    type: 0,
    content: 'hello',
    tts: false,
    embeds: [],
    attachments: [],
    components: [],
    flags: 0,
    nonce: null,
    mentions: [],
    mention_roles: [],
    mention_everyone: false,
    mention_channels: [],
    message_reference: null,
    timestamp: '2024-01-01T00:00:00.000Z',
    edited_timestamp: null,
    ...overrides,
  };
}
