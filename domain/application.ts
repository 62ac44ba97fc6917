// The application aggregate (stream application-{id}): what a developer registers to own a bot user.
// The client secret enters as a SHA-256 hash; the clear secret is shown once, in the create response.
import type { Decider, DomainEvent } from './decider.js';
import { DomainError, forbidden, invalidForm, notFound } from './errors.js';

/**
 * The flags an application may set itself, as in the widely used API: the "limited" privileged-intent flags
 * (GATEWAY_PRESENCE_LIMITED, GATEWAY_GUILD_MEMBERS_LIMITED, GATEWAY_MESSAGE_CONTENT_LIMITED). The others are granted.
 */
export const EDITABLE_APPLICATION_FLAGS = (1 << 13) | (1 << 15) | (1 << 19);

export interface ApplicationProfile {
  description: string;
  /** Hash of the icon blob, or null. */
  icon: string | null;
  flags: number;
}

export type ApplicationCreated = DomainEvent<'ApplicationCreated', { applicationId: string; name: string; ownerId: string; clientSecretHash: string }>;
export type ApplicationBotCreated = DomainEvent<'ApplicationBotCreated', { applicationId: string; botUserId: string }>;
/** Carries only the fields that changed. */
export type ApplicationUpdated = DomainEvent<'ApplicationUpdated', { applicationId: string } & Partial<ApplicationProfile>>;
export type ApplicationEvent = ApplicationCreated | ApplicationBotCreated | ApplicationUpdated;

export interface ApplicationState extends ApplicationProfile {
  exists: boolean;
  ownerId: string | null;
  botUserId: string | null;
}

export type ApplicationCommand =
  | { type: 'CreateApplication'; applicationId: string; name: string; ownerId: string; clientSecretHash: string }
  | { type: 'CreateBot'; applicationId: string; actorId: string; botUserId: string }
  | ({ type: 'UpdateApplication'; applicationId: string; actorId: string } & Partial<ApplicationProfile>);

/** Refuses unless the application exists and the actor owns it; 404 for others, as they cannot see it. */
export function assertOwner(state: ApplicationState, actorId: string): void {
  if (!state.exists) throw notFound('UNKNOWN_APPLICATION', 'Unknown Application');
  if (state.ownerId !== actorId) throw forbidden('MISSING_ACCESS', 'Only the owner of the application can do this');
}

export const applicationDecider: Decider<ApplicationState, ApplicationCommand, ApplicationEvent> = {
  initialState: () => ({ exists: false, ownerId: null, botUserId: null, description: '', icon: null, flags: 0 }),
  decide(command, state) {
    switch (command.type) {
      case 'CreateApplication':
        if (state.exists) throw new DomainError('conflict', 'APPLICATION_EXISTS', 'Application already exists');
        return [{ type: 'ApplicationCreated', data: { applicationId: command.applicationId, name: command.name, ownerId: command.ownerId, clientSecretHash: command.clientSecretHash } }];
      case 'CreateBot':
        assertOwner(state, command.actorId);
        if (state.botUserId) throw new DomainError('conflict', 'APPLICATION_HAS_BOT', 'This application already has a bot; reset its token instead');
        return [{ type: 'ApplicationBotCreated', data: { applicationId: command.applicationId, botUserId: command.botUserId } }];
      case 'UpdateApplication': {
        // The bot edits its own application (PATCH /applications/@me); its owner may too.
        if (!(state.exists && command.actorId === state.botUserId)) assertOwner(state, command.actorId);
        if (command.flags !== undefined && (command.flags & ~EDITABLE_APPLICATION_FLAGS) !== (state.flags & ~EDITABLE_APPLICATION_FLAGS)) {
          throw invalidForm([{ path: 'flags', message: 'Only the limited intent flags (1 << 13, 1 << 15, 1 << 19) can be changed' }]);
        }
        const changed: Partial<ApplicationProfile> = {};
        if (command.description !== undefined && command.description !== state.description) changed.description = command.description;
        if (command.icon !== undefined && command.icon !== state.icon) changed.icon = command.icon;
        if (command.flags !== undefined && command.flags !== state.flags) changed.flags = command.flags;
        return Object.keys(changed).length ? [{ type: 'ApplicationUpdated', data: { applicationId: command.applicationId, ...changed } }] : [];
      }
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'ApplicationCreated':
        return { ...applicationDecider.initialState(), exists: true, ownerId: event.data.ownerId };
      case 'ApplicationBotCreated':
        return { ...state, botUserId: event.data.botUserId };
      case 'ApplicationUpdated': {
        const { applicationId: _, ...changed } = event.data;
        return { ...state, ...changed };
      }
    }
  },
};
