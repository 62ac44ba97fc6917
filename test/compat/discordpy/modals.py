# An unmodified discord.py 2.x bot with a modal and an autocompleted option, pointed at Parley by parley.py
# (Route.BASE and the gateway from GET /gateway/bot; the certificate through SSL_CERT_FILE). It syncs its slash
# commands with an app_commands.CommandTree; /feedback answers with a discord.ui.Modal whose on_submit replies with
# what was typed; /fruit's option is completed by an @app_commands.autocomplete callback. It reports what it sees as
# JSON lines on stdout for discordpyModals.test.ts.
import os
import traceback

import discord
from discord import app_commands

from parley import CommandTreeClient, report

FRUITS = ['apple', 'apricot', 'banana', 'blueberry', 'cherry']


class Feedback(discord.ui.Modal, title='Your feedback'):
    subject = discord.ui.TextInput(label='Subject', custom_id='subject', min_length=3, max_length=40)
    details = discord.ui.TextInput(label='Details', custom_id='details', style=discord.TextStyle.paragraph, required=False)

    async def on_submit(self, interaction: discord.Interaction):
        await interaction.response.send_message(f'Thanks for "{self.subject.value}"')
        report(
            'feedback',
            submit_id=str(interaction.id),
            type=interaction.type.value,
            user_id=str(interaction.user.id),
            subject=self.subject.value,
            details=self.details.value,
        )

    async def on_error(self, interaction: discord.Interaction, error: Exception):
        report('error', handler='modal', traceback=''.join(traceback.format_exception(error)))


bot = CommandTreeClient()


@bot.tree.command(name='feedback', description='Tell us what you think')
async def feedback(interaction: discord.Interaction):
    await interaction.response.send_modal(Feedback(custom_id='feedback-form'))
    report('modal_sent', id=str(interaction.id))


async def fruit_names(interaction: discord.Interaction, current: str):
    report('autocomplete', current=current, type=interaction.type.value, command=interaction.command.name)
    return [app_commands.Choice(name=fruit.upper(), value=fruit) for fruit in FRUITS if fruit.startswith(current)]


@bot.tree.command(name='fruit', description='Pick a fruit')
@app_commands.describe(name='Which fruit')
@app_commands.autocomplete(name=fruit_names)
async def fruit(interaction: discord.Interaction, name: str):
    await interaction.response.send_message(f'You picked {name}')
    report('fruit', name=name)


bot.run(os.environ['BOT_TOKEN'])
