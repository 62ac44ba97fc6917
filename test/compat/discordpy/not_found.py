# discord.py's client (Debian's python3-discord, unmodified) at the API prefix PARLEY_API: logs in, fetches the message
# MESSAGE_ID of the channel CHANNEL_ID, which does not exist, and reports as one JSON line what the library raised.
import asyncio
import json
import os

import discord

discord.http.Route.BASE = os.environ['PARLEY_API']


async def main():
    client = discord.Client(intents=discord.Intents.none())
    await client.login(os.environ['BOT_TOKEN'])
    try:
        channel = await client.fetch_channel(int(os.environ['CHANNEL_ID']))
        await channel.fetch_message(int(os.environ['MESSAGE_ID']))
        result = {'raised': None}
    except discord.HTTPException as error:
        result = {'raised': type(error).__name__, 'status': error.status, 'code': error.code, 'text': error.text}
    finally:
        await client.close()
    print(json.dumps(result), flush=True)


asyncio.run(main())
