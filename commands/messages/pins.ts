// Pins and unpins: MANAGE_MESSAGES in a guild; in a DM every participant may.
import { requireMessage } from '../../domain/message.js';
import { Permission, requirePermission } from '../../domain/permissions.js';
import { type PinCommand, pinDecider } from '../../domain/pins.js';
import { messageChannelAccess } from '../access.js';
import { type ActorMeta, type Uses, metadata } from '../deps.js';
import { pinStream } from '../streams.js';
import { loadMessage } from './state.js';

type PinDeps = Uses<'commands' | 'readStore' | 'clock' | 'settle'>;

async function changePin(deps: PinDeps, meta: ActorMeta, channelId: string, messageId: string, pin: boolean) {
  const access = await messageChannelAccess(deps, channelId, meta.actorId);
  if (access.guild) requirePermission(access.permissions, Permission.MANAGE_MESSAGES);
  requireMessage(await loadMessage(deps, messageId), channelId);
  const ids = { channelId, guildId: access.guildId, messageId, actorId: meta.actorId };
  const command: PinCommand = pin ? { type: 'PinMessage', ...ids, at: deps.clock.now() } : { type: 'UnpinMessage', ...ids };
  const { position } = await deps.commands.handle(pinStream(channelId), pinDecider, command, metadata(meta, deps.clock));
  await deps.settle(position);
}

export const pinMessage = (deps: PinDeps, meta: ActorMeta, channelId: string, messageId: string) => changePin(deps, meta, channelId, messageId, true);
export const unpinMessage = (deps: PinDeps, meta: ActorMeta, channelId: string, messageId: string) => changePin(deps, meta, channelId, messageId, false);
