// An unmodified discord.js 14 bot with the GuildVoiceStates intent, run as its own process: it reports every
// voiceStateUpdate with what guild.voiceStates holds then, and moderates as bots do: a member who joins MOVE_FROM is
// moved to MOVE_TO with member.voice.setChannel, and disconnected there with member.voice.disconnect, each with a reason.
import { Client, GatewayIntentBits } from 'discord.js';
import { listener, report, run } from './botSide.js';

const client = new Client({
  intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildVoiceStates],
  rest: { api: `${process.env.PARLEY_ORIGIN}/api`, version: '1' },
});

client.once('clientReady', (ready) => {
  report('ready', {
    guilds: ready.guilds.cache.map((g) => ({ id: g.id, voiceStates: g.voiceStates.cache.map((v) => ({ userId: v.id, channelId: v.channelId })) })),
  });
});

client.on(
  'voiceStateUpdate',
  listener(async (before, after) => {
    report('voiceStateUpdate', {
      userId: after.id,
      from: before.channelId,
      to: after.channelId,
      selfMute: after.selfMute,
      member: after.member?.user.username ?? null,
      inGuild: after.guild.voiceStates.cache.filter((v) => v.channelId !== null).map((v) => ({ userId: v.id, channelId: v.channelId })),
      memberVoice: after.member?.voice.channelId ?? null,
    });
    if (after.id === client.user!.id || !after.member) return;
    // The member each call resolves with is patched from the PATCH answer; their voice state follows on the gateway.
    if (after.channelId === process.env.MOVE_FROM) report('moved', { userId: (await after.member.voice.setChannel(process.env.MOVE_TO!, 'tidying up')).id });
    else if (after.channelId === process.env.MOVE_TO) report('disconnected', { userId: (await after.member.voice.disconnect('closing time')).id });
  }),
);
await run(client);
