// The application aggregate (stream application-{id}): what a developer registers to own a bot user and to be an
// OAuth2 client (its id is the client_id). The client secret enters as a SHA-256 hash; the clear secret is shown
// once, in the create response or the reset's.
import type { Decider, DomainEvent } from './decider.js';
import { DomainError, forbidden, invalidForm, notFound } from './errors.js';
import { redirectUrisErrors } from './oauth2.js';

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
  /** Where the authorization page may send a person back with a code. */
  redirect_uris: string[];
  /** Where its interactions are POSTed instead of the gateway; set only once the endpoint answered its checks. */
  interactions_endpoint_url: string | null;
}

/** The application's Ed25519 key pair: the public key in hex, the private key sealed (ports/secrets.ts SecretBox). */
export interface ApplicationKey {
  verifyKey: string;
  sealedPrivateKey: string;
}

/** `redirectUris` is absent from applications created before OAuth2 clients. */
export type ApplicationCreated = DomainEvent<
  'ApplicationCreated',
  { applicationId: string; name: string; ownerId: string; clientSecretHash: string; redirectUris?: string[] }
>;
/**
 * The bot user takes the application's id, as in the widely used API, where code passes `client.user.id` for the
 * application's. Bots created before that have an id of their own, which still names their application.
 */
export type ApplicationBotCreated = DomainEvent<'ApplicationBotCreated', { applicationId: string; botUserId: string }>;
/** Carries only the fields that changed. */
export type ApplicationUpdated = DomainEvent<'ApplicationUpdated', { applicationId: string } & Partial<ApplicationProfile>>;
export type ApplicationSecretReset = DomainEvent<'ApplicationSecretReset', { applicationId: string; clientSecretHash: string }>;
/**
 * The key pair interactions are signed with: appended with ApplicationCreated, or, for an application created before
 * keys, the first time the key is needed (its object shown, its endpoint set). The private key is only ever sealed.
 */
export type ApplicationKeyCreated = DomainEvent<'ApplicationKeyCreated', { applicationId: string; verifyKey: string; sealedPrivateKey: string }>;
export type ApplicationEvent = ApplicationCreated | ApplicationBotCreated | ApplicationUpdated | ApplicationSecretReset | ApplicationKeyCreated;

export interface ApplicationState extends ApplicationProfile {
  exists: boolean;
  name: string;
  ownerId: string | null;
  botUserId: string | null;
  clientSecretHash: string;
  key: ApplicationKey | null;
}

export type ApplicationCommand =
  | {
      type: 'CreateApplication';
      applicationId: string;
      name: string;
      ownerId: string;
      clientSecretHash: string;
      redirectUris: string[];
      key: ApplicationKey;
    }
  /** Gives an application made before keys its pair; a no-op for one that has it (a concurrent first need won). */
  | ({ type: 'CreateKey'; applicationId: string } & ApplicationKey)
  | { type: 'CreateBot'; applicationId: string; actorId: string }
  | ({ type: 'UpdateApplication'; applicationId: string; actorId: string } & Partial<ApplicationProfile>)
  | { type: 'ResetClientSecret'; applicationId: string; actorId: string; clientSecretHash: string };

function assertRedirectUris(uris: readonly string[] | undefined): void {
  const errors = uris ? redirectUrisErrors(uris) : [];
  if (errors.length) throw invalidForm(errors);
}

/** Refuses unless the application exists and the actor owns it; 404 for others, as they cannot see it. */
export function assertOwner(state: ApplicationState, actorId: string): void {
  if (!state.exists) throw notFound('UNKNOWN_APPLICATION', 'Unknown Application');
  if (state.ownerId !== actorId) throw forbidden('MISSING_ACCESS', 'Only the owner of the application can do this');
}

export const applicationDecider: Decider<ApplicationState, ApplicationCommand, ApplicationEvent> = {
  initialState: () => ({
    exists: false,
    name: '',
    ownerId: null,
    botUserId: null,
    clientSecretHash: '',
    key: null,
    description: '',
    icon: null,
    flags: 0,
    redirect_uris: [],
    interactions_endpoint_url: null,
  }),
  decide(command, state) {
    switch (command.type) {
      case 'CreateApplication': {
        if (state.exists) throw new DomainError('conflict', 'APPLICATION_EXISTS', 'Application already exists');
        assertRedirectUris(command.redirectUris);
        const { applicationId, name, ownerId, clientSecretHash, redirectUris, key } = command;
        return [
          { type: 'ApplicationCreated', data: { applicationId, name, ownerId, clientSecretHash, redirectUris } },
          { type: 'ApplicationKeyCreated', data: { applicationId, ...key } },
        ];
      }
      case 'CreateKey': {
        if (!state.exists) throw notFound('UNKNOWN_APPLICATION', 'Unknown Application');
        const { applicationId, verifyKey, sealedPrivateKey } = command;
        return state.key ? [] : [{ type: 'ApplicationKeyCreated', data: { applicationId, verifyKey, sealedPrivateKey } }];
      }
      case 'CreateBot':
        assertOwner(state, command.actorId);
        if (state.botUserId) throw new DomainError('conflict', 'APPLICATION_HAS_BOT', 'This application already has a bot; reset its token instead');
        return [{ type: 'ApplicationBotCreated', data: { applicationId: command.applicationId, botUserId: command.applicationId } }];
      case 'UpdateApplication': {
        // The bot edits its own application (PATCH /applications/@me); its owner may too.
        if (!(state.exists && command.actorId === state.botUserId)) assertOwner(state, command.actorId);
        if (command.flags !== undefined && (command.flags & ~EDITABLE_APPLICATION_FLAGS) !== (state.flags & ~EDITABLE_APPLICATION_FLAGS)) {
          throw invalidForm([{ path: 'flags', message: 'Only the limited intent flags (1 << 13, 1 << 15, 1 << 19) can be changed' }]);
        }
        assertRedirectUris(command.redirect_uris);
        const changed: Partial<ApplicationProfile> = {};
        if (command.description !== undefined && command.description !== state.description) changed.description = command.description;
        if (command.icon !== undefined && command.icon !== state.icon) changed.icon = command.icon;
        if (command.flags !== undefined && command.flags !== state.flags) changed.flags = command.flags;
        if (command.redirect_uris !== undefined && JSON.stringify(command.redirect_uris) !== JSON.stringify(state.redirect_uris))
          changed.redirect_uris = command.redirect_uris;
        if (command.interactions_endpoint_url !== undefined && command.interactions_endpoint_url !== state.interactions_endpoint_url)
          changed.interactions_endpoint_url = command.interactions_endpoint_url;
        return Object.keys(changed).length ? [{ type: 'ApplicationUpdated', data: { applicationId: command.applicationId, ...changed } }] : [];
      }
      case 'ResetClientSecret':
        assertOwner(state, command.actorId);
        return [{ type: 'ApplicationSecretReset', data: { applicationId: command.applicationId, clientSecretHash: command.clientSecretHash } }];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'ApplicationCreated': {
        const { name, ownerId, clientSecretHash, redirectUris } = event.data;
        return { ...applicationDecider.initialState(), exists: true, name, ownerId, clientSecretHash, redirect_uris: redirectUris ?? [] };
      }
      case 'ApplicationBotCreated':
        return { ...state, botUserId: event.data.botUserId };
      case 'ApplicationUpdated': {
        const { applicationId: _, ...changed } = event.data;
        return { ...state, ...changed };
      }
      case 'ApplicationSecretReset':
        return { ...state, clientSecretHash: event.data.clientSecretHash };
      case 'ApplicationKeyCreated':
        return { ...state, key: { verifyKey: event.data.verifyKey, sealedPrivateKey: event.data.sealedPrivateKey } };
    }
  },
};
