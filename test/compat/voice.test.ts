// discord.js 14 with the GuildVoiceStates intent, unchanged but for the base address: voiceStateUpdate fires when a
// member joins and leaves a voice channel over the gateway, guild.voiceStates and member.voice hold them, and the bot
// moves and disconnects them with member.voice, which the audit log records with its reasons.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Permission } from '../../domain/permissions.js';
import { createGuild, grantRole, join as joinGuild, newMember } from '../http/guildSupport.js';
import { gatewayClients } from '../support/gateway.js';
import { createBot, fileServer } from '../support/server.js';
import { type BotProcess, startBotProcess } from './botProcess.js';

const server = await fileServer();
const clients = gatewayClients(() => server);
const bots: BotProcess[] = [];
afterAll(() => {
  for (const bot of bots) bot.child.kill('SIGKILL');
  clients.closeAll();
});

describe('discord.js and guild voice state', () => {
  it('sees members join, move and leave, and moves and disconnects them itself', async () => {
    const guild = await createGuild(server, undefined, 'Voice Compat');
    const channel = async (name: string) =>
      (await server.api('POST', `/guilds/${guild.id}/channels`, { token: guild.owner.token, body: { name, type: 2 } })).body.id as string;
    const [lobby, from, to] = [await channel('Lobby'), await channel('Waiting room'), await channel('Room')];
    const app = await joinGuild(server, guild, await createBot(server), 'Bot');
    await grantRole(server, guild, app, Permission.MOVE_MEMBERS | Permission.VIEW_AUDIT_LOG, 'voice moderators');
    const member = await newMember(server, guild);
    const session = await clients.session(member.token, 1);
    const voice = (channelId: string | null) => session.send({ op: 4, d: { guild_id: guild.id, channel_id: channelId, self_mute: true, self_deaf: false } });
    voice(lobby);
    await session.dispatch('VOICE_STATE_UPDATE');

    const bot = startBotProcess(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'voiceBot.ts')], {
      PARLEY_ORIGIN: server.origin,
      BOT_TOKEN: app.token,
      NODE_EXTRA_CA_CERTS: join(server.dataDir, 'tls', 'self-signed.crt'),
      MOVE_FROM: from,
      MOVE_TO: to,
    });
    bots.push(bot);
    // Ready with the member already in the lobby (GUILD_CREATE's voice_states).
    const ready = await bot.next('ready', undefined, 30_000);
    expect(ready.data.guilds).toEqual([{ id: guild.id, voiceStates: [{ userId: member.id, channelId: lobby }] }]);

    voice(null);
    const left = await bot.next('voiceStateUpdate', (d) => d.to === null);
    expect(left.data).toMatchObject({ userId: member.id, from: lobby, to: null, member: member.username, inGuild: [], memberVoice: null });
    voice(from);
    const joined = await bot.next('voiceStateUpdate', (d) => d.to === from);
    expect(joined.data).toMatchObject({ userId: member.id, from: null, selfMute: true, inGuild: [{ userId: member.id, channelId: from }], memberVoice: from });
    // The bot moves them on, then disconnects them.
    expect((await bot.next('moved')).data.userId).toBe(member.id);
    expect((await bot.next('voiceStateUpdate', (d) => d.from === from && d.to === to)).data.inGuild).toEqual([{ userId: member.id, channelId: to }]);
    expect((await bot.next('disconnected')).data.userId).toBe(member.id);
    await bot.next('voiceStateUpdate', (d) => d.from === to && d.to === null);
    await session.next(
      (p) =>
        p.t === 'VOICE_STATE_UPDATE' &&
        p.d.channel_id === null &&
        session.received.filter((q) => q.t === 'VOICE_STATE_UPDATE' && q.d.channel_id === null).length === 2,
    );

    const log = await server.api('GET', `/guilds/${guild.id}/audit-logs?user_id=${app.id}`, { token: guild.owner.token });
    expect(log.body.audit_log_entries.map((e: { action_type: number; reason: string; target_id: string }) => [e.action_type, e.reason, e.target_id])).toEqual([
      [25, 'closing time', member.id],
      [26, 'tidying up', member.id],
    ]);
  }, 60_000);
});
