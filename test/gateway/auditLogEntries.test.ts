// GUILD_AUDIT_LOG_ENTRY_CREATE: each new audit entry reaches the sessions of the guild's members who may read the log
// (VIEW_AUDIT_LOG) and asked for GUILD_MODERATION, people's sessions as well as bots', in the audit log route's shape.
import { describe, expect, it } from 'vitest';
import { createGuild, grantRole, newMember } from '../http/guildSupport.js';
import { fileGateway } from '../support/gateway.js';

const GUILDS = 1 << 0;
const GUILD_MODERATION = 1 << 2;
const VIEW_AUDIT_LOG = 1n << 7n;

const { server, gateway } = await fileGateway();

describe('GUILD_AUDIT_LOG_ENTRY_CREATE', () => {
  it('sends each new entry to members with VIEW_AUDIT_LOG and GUILD_MODERATION, as the audit log presents it', async () => {
    const guild = await createGuild(server);
    const moderator = await newMember(server, guild);
    await grantRole(server, guild, moderator, VIEW_AUDIT_LOG, 'moderators');
    const member = await newMember(server, guild);
    const owner = await gateway.session(guild.owner.token, GUILDS | GUILD_MODERATION);
    const moderatorSession = await gateway.session(moderator.token, GUILDS | GUILD_MODERATION);
    const memberSession = await gateway.session(member.token, GUILDS | GUILD_MODERATION);
    const ownerWithoutIntent = await gateway.session(guild.owner.token, GUILDS);

    const created = await server.api('POST', `/guilds/${guild.id}/channels`, {
      token: guild.owner.token,
      body: { name: 'announcements', type: 0 },
      headers: { 'X-Audit-Log-Reason': 'for news' },
    });
    expect(created.status).toBe(201);
    const isEntry = (p: { t?: string | null; d: { target_id?: string } }) => p.t === 'GUILD_AUDIT_LOG_ENTRY_CREATE' && p.d.target_id === created.body.id;
    const [ownerEntry, moderatorEntry] = await Promise.all([owner.next(isEntry), moderatorSession.next(isEntry)]);
    const log = await server.api('GET', `/guilds/${guild.id}/audit-logs?action_type=10&limit=1`, { token: guild.owner.token });
    expect(ownerEntry.d).toEqual({ ...log.body.audit_log_entries[0], guild_id: guild.id });
    expect(ownerEntry.d).toMatchObject({ action_type: 10, user_id: guild.owner.id, reason: 'for news' });
    expect(moderatorEntry.d).toEqual(ownerEntry.d);

    // An entry follows its event's other dispatches: by a later event's, none has reached the member or the session without the intent.
    const later = await server.api('POST', `/guilds/${guild.id}/channels`, { token: guild.owner.token, body: { name: 'later', type: 0 } });
    const isLater = (p: { t?: string | null; d: { id?: string } }) => p.t === 'CHANNEL_CREATE' && p.d.id === later.body.id;
    await Promise.all([memberSession.next(isLater), ownerWithoutIntent.next(isLater)]);
    for (const session of [memberSession, ownerWithoutIntent]) expect(session.received.filter((p) => p.t === 'GUILD_AUDIT_LOG_ENTRY_CREATE')).toEqual([]);
  });
});
