# An unmodified discord.py 2.x bot that answers in its user's language: /greet, synced globally with an
# app_commands.CommandTree (as most bots register their commands), replies in interaction.locale, the locale the
# invoking user chose, and reports it with interaction.guild_locale, for discordpy.test.ts.
import os
import traceback

import discord
from discord import app_commands

from parley import ParleyClient, report

GREETINGS = {discord.Locale.german: 'Hallo', discord.Locale.french: 'Bonjour'}


class Bot(ParleyClient):
    def __init__(self):
        super().__init__(intents=discord.Intents.default())
        self.tree = app_commands.CommandTree(self)

    async def on_ready(self):
        synced = await self.tree.sync()
        report('ready', commands={c.name: str(c.id) for c in synced})


bot = Bot()


@bot.tree.error
async def on_tree_error(interaction: discord.Interaction, error: app_commands.AppCommandError):
    report('error', handler='tree', traceback=''.join(traceback.format_exception(error)))


@bot.tree.command(name='greet', description='Says hello in your language')
async def greet(interaction: discord.Interaction):
    text = GREETINGS.get(interaction.locale, 'Hello')
    await interaction.response.send_message(text)
    report('greeted', locale=str(interaction.locale), guild_locale=str(interaction.guild_locale), text=text)


bot.run(os.environ['BOT_TOKEN'])
