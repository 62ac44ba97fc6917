// A forum tag's emoji_id (and the default reaction's) names one of the guild's custom emojis: another id is refused at
// its path (a list on /api/v1, nested on /api/v10) and appends nothing; emoji_name stays free text. A deleted emoji's id
// stays on the tags that carry it, and resending those tags unchanged is not refused. Over HTTPS.
import { describe, expect, it } from 'vitest';
import { expectNothingAppendedSince, fileServer } from '../support/server.js';
import { dataUri, stillImage } from './expressionSupport.js';
import { createGuild } from './guildSupport.js';

const server = await fileServer();
const png = await stillImage(64, 64);

describe('a forum tag’s emoji_id', () => {
  it('must be one of the guild’s emojis, and stays once the emoji is deleted', async () => {
    const guild = await createGuild(server);
    const token = guild.owner.token;
    const emoji = (await server.api('POST', `/guilds/${guild.id}/emojis`, { token, body: { name: 'party', image: dataUri(png) } })).body;
    const other = await createGuild(server);
    const foreign = (await server.api('POST', `/guilds/${other.id}/emojis`, { token: other.owner.token, body: { name: 'far', image: dataUri(png) } })).body;

    const create = (body: object, prefix = '/api/v1') =>
      server.call('POST', `${prefix}/guilds/${guild.id}/channels`, { token, body: { name: 'help', type: 15, ...body } });
    const refused = async (body: object, prefix?: string) => {
      const before = await server.runtime.store.headPosition();
      const response = await create(body, prefix);
      expect({ status: response.status, code: response.body.code }).toEqual({ status: 400, code: prefix === '/api/v10' ? 50035 : 'INVALID_FORM_BODY' });
      await expectNothingAppendedSince(server, before);
      return response.body.errors;
    };
    expect(
      await refused({
        available_tags: [
          { name: 'ok', emoji_id: emoji.id },
          { name: 'far', emoji_id: foreign.id },
        ],
      }),
    ).toEqual([{ path: 'available_tags.1.emoji_id', message: 'Unknown emoji' }]);
    expect(await refused({ available_tags: [{ name: 'far', emoji_id: foreign.id }] }, '/api/v10')).toEqual({
      available_tags: { 0: { emoji_id: { _errors: [{ code: 'BASE_TYPE_INVALID', message: 'Unknown emoji' }] } } },
    });
    expect(await refused({ default_reaction_emoji: { emoji_id: foreign.id } })).toEqual([
      { path: 'default_reaction_emoji.emoji_id', message: 'Unknown emoji' },
    ]);

    const forum = await create({
      available_tags: [
        { name: 'party', emoji_id: emoji.id },
        { name: 'free', emoji_name: 'any text 🎉' },
      ],
      default_reaction_emoji: { emoji_id: emoji.id },
    });
    expect(forum.status).toBe(201);
    expect(forum.body.available_tags).toMatchObject([
      { name: 'party', emoji_id: emoji.id, emoji_name: null },
      { name: 'free', emoji_id: null, emoji_name: 'any text 🎉' },
    ]);

    // Deleted, the emoji's id stays where it was set; the tags resent unchanged pass, a new tag naming it does not.
    expect((await server.api('DELETE', `/guilds/${guild.id}/emojis/${emoji.id}`, { token })).status).toBe(204);
    const kept = await server.api('GET', `/channels/${forum.body.id}`, { token });
    expect(kept.body.available_tags[0].emoji_id).toBe(emoji.id);
    expect(kept.body.default_reaction_emoji).toEqual({ emoji_id: emoji.id, emoji_name: null });
    const renamed = [{ ...kept.body.available_tags[0], name: 'parties' }, kept.body.available_tags[1]];
    const resent = await server.api('PATCH', `/channels/${forum.body.id}`, {
      token,
      body: { available_tags: renamed, default_reaction_emoji: kept.body.default_reaction_emoji },
    });
    expect(resent.status).toBe(200);
    expect(resent.body.available_tags[0]).toMatchObject({ name: 'parties', emoji_id: emoji.id });
    const before = await server.runtime.store.headPosition();
    const added = await server.api('PATCH', `/channels/${forum.body.id}`, {
      token,
      body: { available_tags: [...renamed, { name: 'new', emoji_id: emoji.id }] },
    });
    expect(added.status).toBe(400);
    expect(added.body.errors).toEqual([{ path: 'available_tags.2.emoji_id', message: 'Unknown emoji' }]);
    await expectNothingAppendedSince(server, before);
  });
});
