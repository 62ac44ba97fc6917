// Every event the log holds is one a decider produced (commands/handle.ts appends nothing else): their union, by
// decider, is what projections and the gateway's dispatches name the events they take by.
import type { applicationDecider } from './application.js';
import type { applicationCommandsDecider } from './applicationCommand.js';
import type { autoModerationExecutionDecider } from './autoModerationExecution.js';
import type { callDecider } from './call.js';
import type { botInteractionDecider } from './commandInteraction.js';
import type { Decider, DomainEvent } from './decider.js';
import type { dmChannelDecider } from './dmChannel.js';
import type { emailClaimDecider } from './emailClaim.js';
import type { sessionStartsDecider } from './gatewaySession.js';
import type { groupDmDecider } from './groupDm.js';
import type { guildDecider } from './guild.js';
import type { guildExpressionsDecider } from './guildExpressions.js';
import type { interactionDecider } from './interaction.js';
import type { inviteDecider } from './invite.js';
import type { messageDecider } from './message.js';
import type { bulkDeleteDecider } from './messageBulkDelete.js';
import type { nonceDecider } from './messageNonce.js';
import type { oauth2GrantDecider } from './oauth2Grant.js';
import type { pinDecider } from './pins.js';
import type { slowmodeDecider } from './slowmode.js';
import type { threadDecider } from './thread.js';
import type { userDecider } from './user.js';
import type { usernameClaimDecider } from './usernameClaim.js';
import type { vanityClaimDecider } from './vanityClaim.js';
import type { voiceDecider } from './voiceState.js';
import type { webhookDecider } from './webhook.js';

/** What a decider's `decide` returns. */
type EventOf<D> = D extends Pick<Decider<never, never, infer E extends DomainEvent>, 'decide'> ? E : never;

export type ParleyEvent = EventOf<
  | typeof applicationDecider
  | typeof applicationCommandsDecider
  | typeof autoModerationExecutionDecider
  | typeof callDecider
  | typeof botInteractionDecider
  | typeof dmChannelDecider
  | typeof emailClaimDecider
  | typeof sessionStartsDecider
  | typeof groupDmDecider
  | typeof guildDecider
  | typeof guildExpressionsDecider
  | typeof interactionDecider
  | typeof inviteDecider
  | typeof messageDecider
  | typeof bulkDeleteDecider
  | typeof nonceDecider
  | typeof oauth2GrantDecider
  | typeof pinDecider
  | typeof slowmodeDecider
  | typeof threadDecider
  | typeof userDecider
  | typeof usernameClaimDecider
  | typeof vanityClaimDecider
  | typeof voiceDecider
  | typeof webhookDecider
>;

export type ParleyEventType = ParleyEvent['type'];

/** One event type's data: of every decider that produces it (a DM channel is opened by two). */
export type EventData<T extends ParleyEventType> = Extract<ParleyEvent, { type: T }>['data'];
