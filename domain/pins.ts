// The pins of a channel (stream channel-pins-{id}): the 50-pin limit is a decision over the whole channel, so pins
// share one stream per channel. Pinning is rare, so this stream is never hot, while sends stay on their own streams.
// Events carry the channel's latest pin time after them, the CHANNEL_PINS_UPDATE payload's last_pin_timestamp.
import type { Decider, DomainEvent } from './decider.js';
import { badRequest } from './errors.js';

export const MAX_PINS = 50;

type PinIds = {
  channelId: string;
  guildId: string | null;
  messageId: string;
  lastPinTimestamp: string | null;
};

export type MessagePinned = DomainEvent<'MessagePinned', PinIds & { pinnedAt: string; pinnedBy: string }>;
/** `unpinnedBy` is null when the pin went with its deleted message. */
export type MessageUnpinned = DomainEvent<'MessageUnpinned', PinIds & { unpinnedBy: string | null }>;
export type PinEvent = MessagePinned | MessageUnpinned;

/** message id → when it was pinned (ISO 8601), in pin order. */
export type PinState = ReadonlyMap<string, string>;

export type PinCommand =
  | { type: 'PinMessage'; channelId: string; guildId: string | null; messageId: string; actorId: string; at: number }
  | { type: 'UnpinMessage'; channelId: string; guildId: string | null; messageId: string; actorId: string | null };

/** The most recent pin time among the pins that remain. */
function latest(pins: Iterable<string>): string | null {
  let last: string | null = null;
  for (const at of pins) if (!last || at > last) last = at;
  return last;
}

export const pinDecider: Decider<PinState, PinCommand, PinEvent> = {
  initialState: () => new Map(),

  decide(command, state) {
    const ids = { channelId: command.channelId, guildId: command.guildId, messageId: command.messageId };
    if (command.type === 'PinMessage') {
      if (state.has(command.messageId)) return [];
      if (state.size >= MAX_PINS) throw badRequest('MAX_PINS', `Maximum number of pins reached (${MAX_PINS})`);
      const pinnedAt = new Date(command.at).toISOString();
      return [{ type: 'MessagePinned', data: { ...ids, pinnedAt, pinnedBy: command.actorId, lastPinTimestamp: latest([...state.values(), pinnedAt]) } }];
    }
    if (!state.has(command.messageId)) return [];
    const remaining = [...state].filter(([id]) => id !== command.messageId).map(([, at]) => at);
    return [{ type: 'MessageUnpinned', data: { ...ids, unpinnedBy: command.actorId, lastPinTimestamp: latest(remaining) } }];
  },

  evolve(state, event) {
    const next = new Map(state);
    if (event.type === 'MessagePinned') next.set(event.data.messageId, event.data.pinnedAt);
    else next.delete(event.data.messageId);
    return next;
  },
};
