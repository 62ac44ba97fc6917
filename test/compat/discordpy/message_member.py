# A discord.py bot without the members intent, as most bots run: its member cache holds only itself, so in on_message
# `message.author` is a Member only through the member the message brings. It reports, for each message of another
# account, what a moderation bot reads of the author there: its class, nick, roles (beside @everyone) and a guild
# permission, and the classes of the mentioned.
import os

import discord

from parley import ParleyClient, report


class MemberReader(ParleyClient):
    async def on_ready(self):
        report('ready', user_id=str(self.user.id))

    async def on_message(self, message: discord.Message):
        if message.author.id == self.user.id:
            return
        author = message.author
        report(
            'message',
            id=str(message.id),
            kind=type(author).__name__,
            nick=author.nick,
            roles=[str(role.id) for role in author.roles if not role.is_default()],
            manage_messages=author.guild_permissions.manage_messages,
            mentions=[type(mentioned).__name__ for mentioned in message.mentions],
        )


intents = discord.Intents.default()
intents.members = False
intents.message_content = True
MemberReader(intents=intents).run(os.environ['BOT_TOKEN'])
