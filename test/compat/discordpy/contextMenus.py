# An unmodified discord.py 2.x bot (Debian's python3-discord) with context menu commands, pointed at Parley through
# the library's own hooks (the REST base, and the gateway from GET /gateway/bot, as parley.py explains). It declares a
# USER and a MESSAGE command with app_commands.context_menu, registers them with CommandTree.sync(), answers each and
# reports what it read as JSON lines on stdout for discordpyContextMenus.test.ts.
import os
import traceback

import discord
from discord import app_commands

from parley import ParleyClient, report


@app_commands.context_menu(name='Inspect user')
async def inspect_user(interaction: discord.Interaction, member: discord.Member):
    await interaction.response.send_message(f'That is {member.name}', ephemeral=True)
    report('user', target_id=str(member.id), name=member.name, is_member=isinstance(member, discord.Member), guild_id=str(member.guild.id))


@app_commands.context_menu(name='Quote message')
async def quote_message(interaction: discord.Interaction, message: discord.Message):
    await interaction.response.send_message(f'Quoting: {message.content}')
    report('message', target_id=str(message.id), content=message.content, author_id=str(message.author.id), channel_id=str(message.channel.id))


class Bot(ParleyClient):
    def __init__(self):
        super().__init__(intents=discord.Intents.default())
        self.tree = app_commands.CommandTree(self)
        self.tree.add_command(inspect_user)
        self.tree.add_command(quote_message)
        self.tree.error(self.on_app_command_error)

    async def on_ready(self):
        synced = await self.tree.sync()
        report('ready', user_id=str(self.user.id), commands={c.name: {'id': str(c.id), 'type': c.type.value} for c in synced})

    async def on_app_command_error(self, interaction, error):
        report('error', handler='app_command', traceback=''.join(traceback.format_exception(error)))


Bot().run(os.environ['BOT_TOKEN'])
