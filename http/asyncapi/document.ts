// The event catalogue as an AsyncAPI 3 document (GET /asyncapi.json): every domain event type's data, from the schemas
// generated from the code's declarations (eventSchemas.json, see generateEventSchemas.ts), as the messages of a guild's
// event stream (GET /guilds/:guildId/events); and the gateway's dispatches, by name, whose data is the widely used
// API's: as its contract describes it (contracts/dispatches.ts), the objects it carries being the same components as
// in the OpenAPI reference's answers. Built once, when first asked for.
import { DISPATCH_CONTRACTS } from '../../contracts/dispatches.js';
import { CONTRACTS } from '../../contracts/index.js';
import type { EventSchemas } from './generateEventSchemas.js';
// Imported rather than read from disk: the build (tsconfig.build.json) emits it beside the code.
import generated from './eventSchemas.json' with { type: 'json' };

type Schema = Record<string, unknown>;

/** What the catalogue says about versions, here and on the reference page. */
export const VERSIONING =
  'Events are never rewritten: an event keeps the shape it was appended with, and its `schemaVersion` in the log says how its ' +
  'personal fields are stored (1: in clear, written before sealing; 2: sealed, opened on every read). The stream hands every event ' +
  'opened, so its data has the shape below whatever its version; a field a later version added is absent from older events (the ' +
  'optional fields of each schema), and readers default it, as the projections do. A change that cannot be read that way gets a new ' +
  'event type rather than a new shape under the old name: no upcaster runs between the log and a reader.';

/** The generated schemas. */
export const eventSchemas = (): EventSchemas => generated as EventSchemas;

/** `schema` with its `#/definitions/` references pointing at the document's components. */
function inComponents(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(inComponents);
  if (!schema || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' ? value.replace('#/definitions/', '#/components/schemas/') : inComponents(value),
    ]),
  );
}

const POSITION = { type: 'string', description: 'Where the event is in the log: opaque; resume after it with `after` or Last-Event-ID.' };

/** One line of the stream: the envelope every event shares, with this type's data. */
const streamed = (type: string, data: unknown): Schema => ({
  type: 'object',
  properties: {
    position: POSITION,
    type: { const: type },
    stream: { type: 'string', description: 'The stream the event was appended to (its aggregate).' },
    time: { type: 'string', format: 'date-time', description: 'When the command that appended it was handled.' },
    actor_id: { type: ['string', 'null'], description: 'The user whose request caused it; null for the service’s own doing.' },
    data,
    erased: { const: true, description: 'Present when a personal field’s key is destroyed: that field is null.' },
  },
  required: ['position', 'type', 'stream', 'time', 'actor_id', 'data'],
});

const messageKey = (name: string) => name.replace(/[^A-Za-z0-9._-]/g, '_');

/** The contracts' objects by identity, each a component named apart from the events' definitions (some share names). */
const CONTRACT_COMPONENTS = new Map<unknown, string>(Object.entries(CONTRACTS).map(([name, schema]) => [schema, `api.${name}`]));

/**
 * A contract's schema with every contract object it holds (itself too, unless `inline`) as a reference to its component,
 * and the names of those components in `used`.
 */
function contractSchema(schema: unknown, used: Set<unknown>, inline = false): unknown {
  const name = inline ? undefined : CONTRACT_COMPONENTS.get(schema);
  if (name) {
    used.add(schema);
    return { $ref: `#/components/schemas/${name}` };
  }
  if (Array.isArray(schema)) return schema.map((item) => contractSchema(item, used));
  if (!schema || typeof schema !== 'object') return schema;
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, contractSchema(value, used)]));
}

/** The components the dispatches' contracts refer to, and those they refer to in turn. */
function contractComponents(used: Set<unknown>): Record<string, unknown> {
  const components: Record<string, unknown> = {};
  for (const schema of used) {
    const name = CONTRACT_COMPONENTS.get(schema)!;
    // A set iterates over what is added while it is iterated: the components a component refers to are visited too.
    if (!(name in components)) components[name] = contractSchema(schema, used, true);
  }
  return Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b)));
}

const contracted = (t: string): t is keyof typeof DISPATCH_CONTRACTS => t in DISPATCH_CONTRACTS;

let built: Schema | null = null;

export function asyncApiDocument(): Schema {
  if (built) return built;
  const { definitions, events, dispatches } = eventSchemas();
  const used = new Set<unknown>();
  const eventMessages = Object.fromEntries(
    Object.entries(events).map(([type, event]) => [
      type,
      {
        name: type,
        title: type,
        summary: `${type}, declared in ${event.declaredIn}.`,
        ...(event.description ? { description: event.description } : {}),
        contentType: 'application/json',
        payload: streamed(type, inComponents(event.data)),
      },
    ]),
  );
  const dispatchMessages = Object.fromEntries(
    dispatches.map((t) => [
      `dispatch.${messageKey(t)}`,
      {
        name: t,
        title: t,
        summary: contracted(t)
          ? `The gateway dispatch ${t}: its \`d\` as its contract (contracts/dispatches.ts) describes it.`
          : `The gateway dispatch ${t}: its \`d\` in the widely used API’s shape (discord-api-types), where Parley sends it.`,
        contentType: 'application/json',
        payload: {
          type: 'object',
          properties: {
            op: { const: 0 },
            t: { const: t },
            s: { type: 'integer' },
            d: contracted(t) ? contractSchema(DISPATCH_CONTRACTS[t], used) : { type: 'object' },
          },
          required: ['op', 't', 's', 'd'],
        },
      },
    ]),
  );
  const refs = (names: string[]) => Object.fromEntries(names.map((name) => [name, { $ref: `#/components/messages/${name}` }]));
  const channelRefs = (channel: string, names: string[]) => names.map((name) => ({ $ref: `#/channels/${channel}/messages/${name}` }));
  built = {
    asyncapi: '3.0.0',
    info: {
      title: 'Parley events',
      version: '1.0.0',
      description: `Every event type of Parley's log, as a guild's event stream hands it to analysts, and the gateway's dispatches.\n\n${VERSIONING}`,
    },
    defaultContentType: 'application/json',
    channels: {
      guildEvents: {
        address: '/api/v10/guilds/{guildId}/events',
        title: 'A guild’s events',
        description:
          'Server-Sent Events or NDJSON over HTTPS: caught up from a position, then followed. Needs VIEW_AUDIT_LOG, or an OAuth2 token with guilds.events.read.',
        parameters: { guildId: { description: 'The guild’s id.' } },
        messages: refs(Object.keys(eventMessages)),
      },
      gateway: {
        address: '/gateway',
        title: 'The WebSocket gateway',
        description: 'Dispatches (op 0) a session receives, by its intents and what it may see.',
        messages: refs(Object.keys(dispatchMessages)),
      },
    },
    operations: {
      readGuildEvents: {
        action: 'receive',
        channel: { $ref: '#/channels/guildEvents' },
        summary: 'Read a guild’s events, caught up and then live.',
        messages: channelRefs('guildEvents', Object.keys(eventMessages)),
      },
      receiveDispatches: {
        action: 'receive',
        channel: { $ref: '#/channels/gateway' },
        summary: 'Receive the gateway’s dispatches.',
        messages: channelRefs('gateway', Object.keys(dispatchMessages)),
      },
    },
    components: {
      schemas: { ...(inComponents(definitions) as Schema), ...contractComponents(used) },
      messages: { ...eventMessages, ...dispatchMessages },
    },
  };
  return built;
}
