import { applicationCommandsProjection } from './applicationCommands.js';
import { applicationsProjection } from './applications.js';
import { auditLogProjection } from './auditLog.js';
import { callsProjection } from './calls.js';
import { channelsProjection } from './channels.js';
import { dmsProjection } from './dms.js';
import { expressionsProjection } from './expressions.js';
import { gatewaySessionsProjection } from './gatewaySessions.js';
import { guildsProjection } from './guilds.js';
import { interactionsProjection } from './interactions.js';
import { invitesProjection } from './invites.js';
import { memberActivityProjection } from './memberActivity.js';
import { membersProjection } from './members.js';
import { messagesProjection } from './messages.js';
import { oauth2Projection } from './oauth2.js';
import type { Projection } from './projection.js';
import { threadsProjection } from './threads.js';
import { usersProjection } from './users.js';
import { voiceStatesProjection } from './voiceStates.js';
import { webhooksProjection } from './webhooks.js';

/** Every read model of the service, in the order their writes are applied within a batch. */
export const allProjections: Projection[] = [
  usersProjection,
  oauth2Projection,
  applicationsProjection,
  gatewaySessionsProjection,
  guildsProjection,
  channelsProjection,
  membersProjection,
  memberActivityProjection,
  invitesProjection,
  auditLogProjection,
  dmsProjection,
  messagesProjection,
  threadsProjection,
  webhooksProjection,
  interactionsProjection,
  applicationCommandsProjection,
  expressionsProjection,
  voiceStatesProjection,
  callsProjection,
];
