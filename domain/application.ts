// The application aggregate (stream application-{id}): what a developer registers to own a bot user.
// The client secret enters as a SHA-256 hash; the clear secret is shown once, in the create response.
import type { Decider, DomainEvent } from './decider.js';
import { DomainError, forbidden, notFound } from './errors.js';

export type ApplicationCreated = DomainEvent<'ApplicationCreated', { applicationId: string; name: string; ownerId: string; clientSecretHash: string }>;
export type ApplicationBotCreated = DomainEvent<'ApplicationBotCreated', { applicationId: string; botUserId: string }>;
export type ApplicationEvent = ApplicationCreated | ApplicationBotCreated;

export interface ApplicationState {
  exists: boolean;
  ownerId: string | null;
  botUserId: string | null;
}

export type ApplicationCommand =
  | { type: 'CreateApplication'; applicationId: string; name: string; ownerId: string; clientSecretHash: string }
  | { type: 'CreateBot'; applicationId: string; actorId: string; botUserId: string };

/** Refuses unless the application exists and the actor owns it; 404 for others, as they cannot see it. */
export function assertOwner(state: ApplicationState, actorId: string): void {
  if (!state.exists) throw notFound('UNKNOWN_APPLICATION', 'Unknown Application');
  if (state.ownerId !== actorId) throw forbidden('MISSING_ACCESS', 'Only the owner of the application can do this');
}

export const applicationDecider: Decider<ApplicationState, ApplicationCommand, ApplicationEvent> = {
  initialState: () => ({ exists: false, ownerId: null, botUserId: null }),
  decide(command, state) {
    switch (command.type) {
      case 'CreateApplication':
        if (state.exists) throw new DomainError('conflict', 'APPLICATION_EXISTS', 'Application already exists');
        return [{ type: 'ApplicationCreated', data: { applicationId: command.applicationId, name: command.name, ownerId: command.ownerId, clientSecretHash: command.clientSecretHash } }];
      case 'CreateBot':
        assertOwner(state, command.actorId);
        if (state.botUserId) throw new DomainError('conflict', 'APPLICATION_HAS_BOT', 'This application already has a bot; reset its token instead');
        return [{ type: 'ApplicationBotCreated', data: { applicationId: command.applicationId, botUserId: command.botUserId } }];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'ApplicationCreated':
        return { exists: true, ownerId: event.data.ownerId, botUserId: null };
      case 'ApplicationBotCreated':
        return { ...state, botUserId: event.data.botUserId };
    }
  },
};
