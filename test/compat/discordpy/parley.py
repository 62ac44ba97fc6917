# What the discord.py bots here share: the library pointed at Parley through its own hooks, the REST base (Route.BASE),
# the origin of image URLs (Asset.BASE: Parley serves avatars, icons, emojis and stickers at the widely used CDN's
# paths, at its root) and the gateway the Client connects to (from GET /gateway/bot), the self-signed certificate
# being trusted through SSL_CERT_FILE; their reports, JSON lines on stdout for the compatibility tests; and a Client
# that reports its handlers' failures as "error".
import json
import os
import traceback

import discord
import yarl
from discord.gateway import DiscordWebSocket

discord.http.Route.BASE = f"{os.environ['PARLEY_ORIGIN']}/api/v10"
discord.asset.Asset.BASE = os.environ['PARLEY_ORIGIN']


def report(event, **data):
    print(json.dumps({'event': event, 'data': data}), flush=True)


class ParleyClient(discord.Client):
    async def setup_hook(self):
        # A Client (not sharded) connects to DEFAULT_GATEWAY, and goes back to it after an invalid session; only
        # AutoShardedClient asks GET /gateway/bot. After a READY it resumes at READY's resume_gateway_url.
        _, url = await self.http.get_bot_gateway()
        DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(url)

    async def on_error(self, event, *args, **kwargs):
        report('error', handler=event, traceback=traceback.format_exc())
