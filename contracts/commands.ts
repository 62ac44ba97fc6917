// Application commands (presenters/applicationCommands.ts) and what an interaction's response answers
// (presenters/interactions.ts).
import { Message } from './messages.js';
import { anyArray, integer, list, nullable, object, snowflakeSchema, string, boolean } from './schema.js';

export const ApplicationCommand = object(
  'An application command; guild_id is null for a global one.',
  {
    id: snowflakeSchema,
    application_id: snowflakeSchema,
    guild_id: nullable(snowflakeSchema),
    name: string,
    description: string,
    type: integer,
    version: snowflakeSchema,
  },
  { options: anyArray },
);

export const ApplicationCommandIndex = object('A member’s command index of a guild: the applications and the commands the member may use.', {
  applications: list(
    object('An application whose bot is a member.', {
      id: snowflakeSchema,
      name: string,
      description: string,
      icon: nullable(string),
      bot_id: nullable(snowflakeSchema),
    }),
  ),
  application_commands: list(ApplicationCommand),
  version: string,
});

export const InteractionCallback = object(
  'The answer of a response made with ?with_response=true: the callback and the message it made or updated (none for a modal or choices).',
  {
    interaction: object(
      'The interaction answered.',
      { id: snowflakeSchema, type: integer },
      { response_message_id: snowflakeSchema, response_message_loading: boolean, response_message_ephemeral: boolean },
    ),
    resource: object('What the response made.', { type: integer }, { message: Message }),
  },
);
