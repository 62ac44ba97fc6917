// The event catalogue: its schemas are what the generator makes from the code's declarations today (no drift), the
// AsyncAPI 3 document served over HTTPS validates with the AsyncAPI parser, every event type of the domain is in it,
// and the reference page lists them.
import { readFile } from 'node:fs/promises';
import { Parser } from '@asyncapi/parser';
import { describe, expect, it } from 'vitest';
import { MessageDispatch } from '../../contracts/dispatches.js';
import { User } from '../../contracts/users.js';
import { OUTPUT, generateEventSchemas, serialized } from '../../http/asyncapi/generateEventSchemas.js';
import { allProjections } from '../../projections/index.js';
import { fileServer } from '../support/server.js';

const server = await fileServer();

describe('event catalogue', () => {
  it('is what the generator makes from the domain’s event union today (npm run events:schemas regenerates it)', { timeout: 300_000 }, async () => {
    const generated = generateEventSchemas();
    expect(await serialized(generated)).toBe(await readFile(OUTPUT, 'utf8'));
    // Every event a projection takes is one of the union's.
    const types = new Set(Object.keys(generated.events));
    expect(allProjections.flatMap((p) => p.handles).filter((type) => !types.has(type))).toEqual([]);
  });

  it('serves an AsyncAPI 3 document that validates and carries every event type and dispatch', async () => {
    const response = await server.call('GET', '/api/v10/asyncapi.json');
    expect(response.status).toBe(200);
    const document = response.body;
    const diagnostics = await new Parser().validate(document);
    expect(diagnostics.filter((d) => d.severity === 0).map((d) => `${d.path.join('.')}: ${d.message}`)).toEqual([]);

    const catalogue = JSON.parse(await readFile(OUTPUT, 'utf8')) as { events: Record<string, unknown>; dispatches: string[] };
    const streamed = Object.keys(document.channels.guildEvents.messages);
    expect(streamed.sort()).toEqual(Object.keys(catalogue.events).sort());
    expect(streamed).toEqual(expect.arrayContaining(['MessageCreated', 'MemberJoined', 'MemberBanned', 'ChannelCreated', 'UserErased']));
    expect(Object.values(document.channels.gateway.messages).length).toBe(catalogue.dispatches.length);
    const created = document.components.messages.MessageCreated.payload;
    expect(created.properties.type).toEqual({ const: 'MessageCreated' });
    expect(created.properties.data.properties.message).toEqual({ $ref: '#/components/schemas/MessageFields' });
    expect(document.components.schemas.MessageFields.properties.content).toBeDefined();
  });

  it('gives a dispatch with a contract its data as the contract, the objects it carries as the contracts’ components', async () => {
    const { components } = (await server.call('GET', '/api/v10/asyncapi.json')).body;
    const data = (t: string) => components.messages[`dispatch.${t}`].payload.properties.d;
    expect(data('MESSAGE_CREATE')).toMatchObject({ required: MessageDispatch.required, properties: { author: { $ref: '#/components/schemas/api.User' } } });
    expect(data('THREAD_UPDATE')).toEqual({ $ref: '#/components/schemas/api.Thread' });
    expect(data('MESSAGE_REACTION_ADD').properties.member).toEqual({ $ref: '#/components/schemas/api.Member' });
    // A contract a component holds is a component too; the events' definitions of the same name are left as they are.
    expect(components.schemas['api.Member'].properties.user).toEqual({ $ref: '#/components/schemas/api.User' });
    expect(components.schemas['api.User'].required).toEqual(User.required);
    expect(components.schemas.Embed).toBeDefined();
    expect(data('TYPING_START')).toEqual({ type: 'object' });
  });

  it('lists the event types on the reference page beside the OpenAPI reference, with how versions are read', async () => {
    const page = await server.call('GET', '/api/v1/docs', { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.text).toContain('href="/api/v1/asyncapi.json"');
    expect(page.text).toContain('<code>MessageCreated</code> (domain/message.ts)');
    expect(page.text).toContain('schemaVersion');
  });
});
