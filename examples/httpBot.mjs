// An HTTP-interactions bot for Parley, built as the widely used API's getting-started app is: no gateway connection, an
// HTTPS server whose requests discord-interactions' verifyKeyMiddleware checks against the application's verify_key.
// At start it registers /hello, serves its endpoint and sets it as the application's interactions endpoint URL (Parley
// sends it a signed PING and a forged one first); each /hello is then answered inline, in the HTTP response.
//
//   Parley started with INTERACTIONS_ALLOW_PRIVATE=1 (so that it may call an endpoint on this machine, self-signed), then
//   NODE_EXTRA_CA_CERTS=${DATA_DIR:-./data}/tls/self-signed.crt BOT_TOKEN=… node examples/httpBot.mjs
import { createServer } from 'node:https';
import { InteractionResponseType, InteractionType, verifyKeyMiddleware } from 'discord-interactions';
import selfsigned from 'selfsigned';

const api = `${process.env.PARLEY_ORIGIN ?? 'https://127.0.0.1:8443'}/api/v10`;

async function call(method, path, body) {
  const headers = { Authorization: `Bot ${process.env.BOT_TOKEN}`, 'Content-Type': 'application/json' };
  const response = await fetch(`${api}${path}`, { method, headers, body: body && JSON.stringify(body) });
  const answer = await response.json();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(answer)}`);
  return answer;
}

const application = await call('GET', '/applications/@me');
const verify = verifyKeyMiddleware(application.verify_key);

/** Reached only by requests whose signature verified; the middleware itself answers PINGs with {"type": 1}. */
function answer(req, res) {
  const interaction = req.body;
  res.setHeader('Content-Type', 'application/json');
  if (interaction.type === InteractionType.APPLICATION_COMMAND && interaction.data.name === 'hello') {
    const user = interaction.member?.user ?? interaction.user;
    console.log(`/hello from ${user.username}`);
    res.end(JSON.stringify({ type: InteractionResponseType.CHANNEL_MESSAGE_WITH_SOURCE, data: { content: `Hello, <@${user.id}>!` } }));
    return;
  }
  res.statusCode = 400;
  res.end(JSON.stringify({ error: 'unknown interaction' }));
}

// A certificate of its own for the endpoint; TLS_CERT and TLS_KEY (PEM text) give a real one.
const pems = process.env.TLS_CERT
  ? { cert: process.env.TLS_CERT, private: process.env.TLS_KEY }
  : await selfsigned.generate([{ name: 'commonName', value: 'localhost' }]);
const server = createServer({ cert: pems.cert, key: pems.private }, (req, res) => {
  // verifyKeyMiddleware is written for express, whose requests read headers with req.header(name).
  req.header = (name) => req.headers[name.toLowerCase()];
  void verify(req, res, () => answer(req, res));
});
await new Promise((resolve) => server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1', resolve));
const url = process.env.PUBLIC_URL ?? `https://127.0.0.1:${server.address().port}/interactions`;

await call('PUT', `/applications/${application.id}/commands`, [{ name: 'hello', description: 'Says hello', type: 1 }]);
await call('PATCH', '/applications/@me', { interactions_endpoint_url: url });
console.log(`${application.name}: /hello registered, interactions endpoint ${url} verified`);

process.on('SIGTERM', () => server.close(() => process.exit(0)));
