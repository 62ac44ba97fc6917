import type { TypingHint } from '../../ports/hints.js';
import type { Dispatch } from '../dispatch.js';
import { Intent, type DispatchData } from '../protocol.js';
import { dispatch } from './deriver.js';

/** TYPING_START comes from a hint, not from the log: typing is not state. */
export function typingDispatch(hint: TypingHint): Dispatch {
  const d: DispatchData['TYPING_START'] = {
    channel_id: hint.channelId,
    user_id: hint.userId,
    timestamp: Math.floor(hint.timestamp / 1000),
    ...(hint.guildId ? { guild_id: hint.guildId } : {}),
  };
  return hint.guildId
    ? dispatch('TYPING_START', d, { intent: Intent.GUILD_MESSAGE_TYPING, audience: { guildId: hint.guildId, channelId: hint.channelId } })
    : dispatch('TYPING_START', d, { intent: Intent.DIRECT_MESSAGE_TYPING, audience: { users: hint.recipientIds ?? [] } });
}
