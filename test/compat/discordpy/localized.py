# An unmodified discord.py 2.x bot that answers in its user's language: /greet, synced globally with an
# app_commands.CommandTree (as most bots register their commands), replies in interaction.locale, the locale the
# invoking user chose, and reports it with interaction.guild_locale, for discordpy.test.ts.
import os

import discord

from parley import CommandTreeClient, report

GREETINGS = {discord.Locale.german: 'Hallo', discord.Locale.french: 'Bonjour'}


bot = CommandTreeClient()


@bot.tree.command(name='greet', description='Says hello in your language')
async def greet(interaction: discord.Interaction):
    text = GREETINGS.get(interaction.locale, 'Hello')
    await interaction.response.send_message(text)
    report('greeted', locale=str(interaction.locale), guild_locale=str(interaction.guild_locale), text=text)


bot.run(os.environ['BOT_TOKEN'])
