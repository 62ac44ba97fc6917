# An unmodified discord.py 2.x bot, run the way bot developers run theirs, pointed at Parley through the library's
# own hooks (parley.py). It reports what it sees as JSON lines on stdout for the compatibility test; "!demo" from a
# member makes it reply, react, edit, read history, send an embed and a file; "!members" makes it request members and
# set its presence.
import io
import os

import discord

from parley import ParleyClient, report


class Bot(ParleyClient):
    async def on_ready(self):
        report(
            'ready',
            user_id=str(self.user.id),
            application_id=str(self.application_id),
            guilds=[
                {'id': str(g.id), 'name': g.name, 'channels': [str(c.id) for c in g.text_channels], 'me': str(g.me.id) if g.me else None}
                for g in self.guilds
            ],
        )

    async def on_resumed(self):
        report('resumed')

    async def on_message(self, message):
        if message.author == self.user:
            return
        report('message', id=str(message.id), content=message.content, author_id=str(message.author.id), guild_id=str(message.guild.id))
        if message.content == '!members':
            await self.members(message)
        if message.content != '!demo':
            return
        reply = await message.reply('pong')
        await message.add_reaction('\N{THUMBS UP SIGN}')
        edited = await reply.edit(content='pong (edited)')
        history = [m.content async for m in message.channel.history(limit=3)]
        embed = discord.Embed(title='Status', description='all good', colour=0x00AA55)
        embedded = await message.channel.send(embed=embed)
        filed = await message.channel.send('a file', file=discord.File(io.BytesIO(b'hello from discord.py\n'), filename='notes.txt'))
        report('demo', reply_id=str(reply.id), edited=edited.content, history=history, embed_id=str(embedded.id), file_id=str(filed.id))


    async def members(self, message):
        # Gateway requests everyday bot code makes: op 8 by prefix and by ids (with presences), and op 3.
        guild = message.guild
        by_prefix = await guild.query_members(query=message.author.name[:4], limit=5)
        by_ids = await guild.query_members(user_ids=[message.author.id, self.user.id], presences=True)
        await self.change_presence(status=discord.Status.idle, activity=discord.Game('the tests'))
        report(
            'members',
            cached=sorted(str(m.id) for m in guild.members),
            by_prefix=sorted(str(m.id) for m in by_prefix),
            by_ids=sorted(str(m.id) for m in by_ids),
            author_status=str(guild.get_member(message.author.id).status),
        )


intents = discord.Intents.default()
intents.message_content = True
# Privileged intents: with members, discord.py chunks every guild (op 8) before on_ready.
intents.members = True
intents.presences = True
Bot(intents=intents).run(os.environ['BOT_TOKEN'])
