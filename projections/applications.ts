// Read model of applications, for their owners and their bots.
import { APPLICATIONS } from './collections.js';
import { projection } from './projection.js';

export interface ApplicationDoc {
  _id: string;
  name: string;
  owner_id: string;
  bot_user_id: string | null;
  /** The profile fields are absent from documents projected by versions before PATCH /applications/@me (and OAuth2). */
  description?: string;
  icon?: string | null;
  flags?: number;
  redirect_uris?: string[];
  interactions_endpoint_url?: string | null;
  /** The public key interactions are signed with (hex); absent until an application made before keys needs it. */
  verify_key?: string;
  created_at: string;
  [key: string]: unknown;
}

export const applicationsProjection = projection({
  name: 'applications',
  handles: ['ApplicationCreated', 'ApplicationBotCreated', 'ApplicationUpdated', 'ApplicationKeyCreated'],
  collections: [APPLICATIONS],
  // bot_user_id: the applications of bots made before a bot user took its application's id are found by that user's.
  indexes: [
    { collection: APPLICATIONS, keys: { owner_id: 1 } },
    { collection: APPLICATIONS, keys: { bot_user_id: 1 } },
  ],
  project(event) {
    switch (event.type) {
      case 'ApplicationCreated': {
        const doc: ApplicationDoc = {
          _id: event.data.applicationId,
          name: event.data.name,
          owner_id: event.data.ownerId,
          bot_user_id: null,
          description: '',
          icon: null,
          flags: 0,
          redirect_uris: event.data.redirectUris ?? [],
          created_at: event.metadata.createdAt,
        };
        return [{ replaceOne: { collection: APPLICATIONS, filter: { _id: doc._id }, replacement: doc, upsert: true } }];
      }
      case 'ApplicationBotCreated':
        return [
          { updateOne: { collection: APPLICATIONS, filter: { _id: event.data.applicationId }, update: { $set: { bot_user_id: event.data.botUserId } } } },
        ];
      case 'ApplicationKeyCreated':
        return [{ updateOne: { collection: APPLICATIONS, filter: { _id: event.data.applicationId }, update: { $set: { verify_key: event.data.verifyKey } } } }];
      case 'ApplicationUpdated': {
        const { applicationId, ...changed } = event.data;
        return [{ updateOne: { collection: APPLICATIONS, filter: { _id: applicationId }, update: { $set: changed } } }];
      }
    }
  },
});
