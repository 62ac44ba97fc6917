// Typing: who may send in a channel may say they are typing there. A hint relayed to the gateway as TYPING_START, never
// written to the log: typing is not state.
import { Permission, requirePermission } from '../../domain/permissions.js';
import type { HintBus } from '../../ports/hints.js';
import { messageChannelAccess } from '../access.js';
import type { Uses } from '../deps.js';

export async function startTyping(
  deps: Uses<'commands' | 'readStore' | 'clock'> & { hints: Pick<HintBus, 'publish'> },
  channelId: string,
  userId: string,
): Promise<void> {
  const access = await messageChannelAccess(deps, channelId, userId);
  requirePermission(access.permissions, Permission.SEND_MESSAGES);
  deps.hints.publish({
    type: 'TYPING_START',
    channelId,
    guildId: access.guildId,
    userId,
    timestamp: deps.clock.now(),
    ...(access.dm ? { recipientIds: access.dm.recipient_ids } : {}),
  });
}
