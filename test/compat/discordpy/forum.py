# An unmodified discord.py 2.x bot (Debian's python3-discord) posting in a forum, pointed at Parley through the
# library's own hooks (the REST base, and the gateway from GET /gateway/bot, as parley.py explains). Once ready it finds
# FORUM_ID among its guild's channels (from GUILD_CREATE), opens a post with ForumChannel.create_thread and one of the
# forum's tags, and reports what it made and each on_thread_create as JSON lines on stdout for discordpyForum.test.ts.
import os

import discord

from parley import ParleyClient, report


class Bot(ParleyClient):
    async def on_ready(self):
        forum = self.get_channel(int(os.environ['FORUM_ID']))
        tags = [{'id': str(tag.id), 'name': tag.name, 'moderated': tag.moderated} for tag in forum.available_tags]
        report('forum', is_forum=isinstance(forum, discord.ForumChannel), tags=tags)
        question = next(tag for tag in forum.available_tags if tag.name == 'question')
        post = await forum.create_thread(name='From discord.py', content='First post from discord.py', applied_tags=[question])
        report(
            'posted',
            id=str(post.thread.id),
            parent_id=str(post.thread.parent_id),
            applied_tags=[str(tag.id) for tag in post.thread.applied_tags],
            message_id=str(post.message.id),
            content=post.message.content,
        )

    async def on_thread_create(self, thread):
        report('thread_create', id=str(thread.id), name=thread.name, parent_id=str(thread.parent_id))


Bot(intents=discord.Intents.default()).run(os.environ['BOT_TOKEN'])
