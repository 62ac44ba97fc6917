// What the gateway sends for an event, and to whom. Dispatches are derived from the log by the gateway projector;
// HTTP handlers never emit them.
export type Audience =
  /** Sessions of these users (DMs, the user's own updates, ephemeral messages). */
  | { users: string[] }
  /** Sessions in the guild — only those whose user can view `channelId` when it is set — plus sessions of `users`. */
  | { guildId: string; channelId?: string; users?: string[] };

export interface Dispatch {
  t: string;
  d: unknown;
  /** The intent a session needs to receive it; null: every session in the audience. */
  intent: number | null;
  audience: Audience;
  /**
   * For messages: what a session without the MESSAGE_CONTENT intent receives instead of `d`, unless its user wrote
   * the message or is mentioned in it.
   */
  withoutContent?: { d: unknown; authorId: string; mentionIds: string[] };
  /** Membership changes the session index must know before routing (joins are routed to the new member). */
  join?: { guildId: string; userId: string };
  leave?: { guildId: string; userId: string };
  /** The guild is gone: after this dispatch no session is in it. */
  dissolve?: string;
  /** Sessions (by id) that receive it besides the audience, whatever their intents: the session a voice join came from. */
  sessions?: string[];
  /** Users of the audience who receive it with `intentOf` instead of `intent` (a thread member's own membership change). */
  intentOf?: { users: string[]; intent: number };
}

/** Views a user's permission to see a channel of a guild, for one dispatch's routing. */
export type ChannelVisibility = (guildId: string, channelId: string) => Promise<(userId: string) => boolean>;
