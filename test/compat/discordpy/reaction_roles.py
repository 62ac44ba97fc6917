# discord.py's own reaction-role example (examples/reaction_roles.py), unchanged in what it does: a reaction to the
# role message gives the reacting member the emoji's role through `payload.member.add_roles`, and removing it takes
# the role back. Here the bot posts the role message itself (in CHANNEL_ID, for the emoji's role ROLE_ID) and reports
# what it did, with the member's avatar URL as discord.py builds it from Asset.BASE, and once ready the guild's members
# it holds (its get_member in on_raw_reaction_remove needs them).
import os

import discord

from parley import ParleyClient, report


class RoleBot(ParleyClient):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.role_message_id = 0
        self.emoji_to_role = {discord.PartialEmoji(name='\N{LARGE RED CIRCLE}'): int(os.environ['ROLE_ID'])}

    async def on_ready(self):
        channel = self.get_channel(int(os.environ['CHANNEL_ID']))
        message = await channel.send('React with \N{LARGE RED CIRCLE} for the red role')
        self.role_message_id = message.id
        # With the members intent and without presences, discord.py chunks the guild (op 8) before on_ready.
        report('ready', role_message_id=str(message.id), member_ids=sorted(str(m.id) for m in channel.guild.members))

    async def on_raw_reaction_add(self, payload: discord.RawReactionActionEvent):
        if payload.message_id != self.role_message_id:
            return
        guild = self.get_guild(payload.guild_id)
        if guild is None:
            return
        try:
            role_id = self.emoji_to_role[payload.emoji]
        except KeyError:
            return
        role = guild.get_role(role_id)
        if role is None:
            return
        await payload.member.add_roles(role)
        report('added', member_id=str(payload.member.id), role_id=str(role.id), avatar_url=payload.member.display_avatar.url)

    async def on_raw_reaction_remove(self, payload: discord.RawReactionActionEvent):
        if payload.message_id != self.role_message_id:
            return
        guild = self.get_guild(payload.guild_id)
        role = guild.get_role(self.emoji_to_role[payload.emoji])
        member = guild.get_member(payload.user_id)
        if member is None or role is None:
            return
        await member.remove_roles(role)
        report('removed', member_id=str(member.id), role_id=str(role.id))


intents = discord.Intents.default()
intents.members = True
RoleBot(intents=intents).run(os.environ['BOT_TOKEN'])
