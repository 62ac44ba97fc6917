// What the gateway sends for an event, and to whom. Dispatches are derived from the log by the gateway projector;
// HTTP handlers never emit them.
import type { DISPATCH_CONTRACTS } from '../contracts/dispatches.js';
import type { Contract } from '../contracts/schema.js';
import type { DispatchData, DispatchEvent } from './protocol.js';

export type Audience =
  /** Sessions of these users (DMs, the user's own updates, ephemeral messages). */
  | { users: string[] }
  /** Sessions in the guild — only those whose user can view `channelId` when it is set — plus sessions of `users`. */
  | { guildId: string; channelId?: string; users?: string[] };

/** How a dispatch is routed: everything but its name and data. */
export interface Routing {
  /** The intent a session needs to receive it; null: every session in the audience. */
  intent: number | null;
  audience: Audience;
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

/** What a session without the MESSAGE_CONTENT intent receives instead of a message's data `D`. */
export interface Withheld<D> {
  d: D;
  /** Sessions of the message's author and of the users it mentions receive the whole data all the same. */
  authorId: string;
  mentionIds: string[];
}

/**
 * One event's dispatch: its data, and what it shows without content or presences, are that event's (DispatchData).
 * `withoutPresences` is what a session without GUILD_PRESENCES receives instead of `d`: a GUILD_CREATE listing only its
 * user's member and those in voice channels. A dispatch has one of the two at most: the registry serializes one variant.
 */
type DispatchOf<T extends DispatchEvent> = Routing & {
  t: T;
  d: DispatchData[T];
  withoutContent?: Withheld<DispatchData[T]>;
  withoutPresences?: DispatchData[T];
};

/**
 * A dispatch of one of the events T (by default any): a union over the events, so a name cannot go with another
 * event's data, and testing `t` narrows `d`.
 */
export type Dispatch<T extends DispatchEvent = DispatchEvent> = { [K in T]: DispatchOf<K> }[T];

/** Views a user's permission to see a channel of a guild, for one dispatch's routing. */
export type ChannelVisibility = (guildId: string, channelId: string) => Promise<(userId: string) => boolean>;

type DispatchContracts = typeof DISPATCH_CONTRACTS;

/** Event T's data as its contract (contracts/dispatches.ts) describes it; anything, for an event without one. */
type ContractedData<T extends DispatchEvent> = T extends keyof DispatchContracts ? Contract<DispatchContracts[T]> : unknown;

/**
 * Data every event of T's contract takes (as DataOfEach, gateway/protocol.ts): the dispatch builder requires it beside
 * the event's type, so data that drifts from the object the HTTP API answers with fails to compile.
 */
export type ContractedDataOfEach<T extends DispatchEvent> = ContractedData<T> &
  ((T extends DispatchEvent ? (d: ContractedData<T>) => void : never) extends (d: infer D) => void ? D : never);
