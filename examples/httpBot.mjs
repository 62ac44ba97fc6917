// An HTTP-interactions bot for Parley, built as the widely used API's getting-started app is: no gateway connection, an
// HTTPS server whose requests discord-interactions' verifyKeyMiddleware checks against the application's verify_key.
// At start it registers its commands, serves its endpoint and sets it as the application's interactions endpoint URL
// (Parley sends it a signed PING and a forged one first). Every interaction is then answered inline, in the HTTP
// response: /hello with a message, /feedback with a modal whose submit it thanks for, /fruit's option with autocomplete
// choices as the user types, then with the fruit picked.
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

const FRUITS = ['apple', 'apricot', 'banana', 'blackberry', 'cherry', 'grape', 'mango', 'orange', 'pear', 'plum'];

/** The inline answer to an interaction, or null for one this bot does not know. */
function respond(interaction) {
  const user = interaction.member?.user ?? interaction.user;
  const message = (content) => ({ type: InteractionResponseType.CHANNEL_MESSAGE_WITH_SOURCE, data: { content } });
  switch (interaction.type) {
    case InteractionType.APPLICATION_COMMAND:
      console.log(`/${interaction.data.name} from ${user.username}`);
      if (interaction.data.name === 'hello') return message(`Hello, <@${user.id}>!`);
      if (interaction.data.name === 'fruit') return message(`You picked ${interaction.data.options[0].value}.`);
      if (interaction.data.name === 'feedback') {
        const input = { type: 4, custom_id: 'text', style: 2, label: 'What do you think?', min_length: 2, max_length: 500 };
        return { type: InteractionResponseType.MODAL, data: { custom_id: 'feedback', title: 'Feedback', components: [{ type: 1, components: [input] }] } };
      }
      return null;
    case InteractionType.MODAL_SUBMIT:
      return interaction.data.custom_id === 'feedback' ? message(`Thanks, <@${user.id}>: “${interaction.data.components[0].components[0].value}”`) : null;
    case InteractionType.APPLICATION_COMMAND_AUTOCOMPLETE: {
      const typed = String(interaction.data.options.find((option) => option.focused).value).toLowerCase();
      const choices = FRUITS.filter((fruit) => fruit.startsWith(typed)).map((fruit) => ({ name: fruit, value: fruit }));
      return { type: InteractionResponseType.APPLICATION_COMMAND_AUTOCOMPLETE_RESULT, data: { choices } };
    }
    default:
      return null;
  }
}

/** Reached only by requests whose signature verified; the middleware itself answers PINGs with {"type": 1}. */
function answer(req, res) {
  const response = respond(req.body);
  res.setHeader('Content-Type', 'application/json');
  if (!response) res.statusCode = 400;
  res.end(JSON.stringify(response ?? { error: 'unknown interaction' }));
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

await call('PUT', `/applications/${application.id}/commands`, [
  { name: 'hello', description: 'Says hello', type: 1 },
  { name: 'feedback', description: 'Tell us what you think', type: 1 },
  { name: 'fruit', description: 'Pick a fruit', type: 1, options: [{ type: 3, name: 'name', description: 'A fruit', required: true, autocomplete: true }] },
]);
await call('PATCH', '/applications/@me', { interactions_endpoint_url: url });
console.log(`${application.name}: /hello, /feedback and /fruit registered, interactions endpoint ${url} verified`);

process.on('SIGTERM', () => server.close(() => process.exit(0)));
