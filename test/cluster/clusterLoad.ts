// What the cluster suites drive and check: a send load through the balanced API that records what was acknowledged
// and how the rest was refused, and a channel's history read back through one node.
import { EventEmitter, once } from 'node:events';
import type { TestServer } from '../support/server.js';

/** A send that was not acknowledged: its status (0: no answer, the connection failed) and what it said. */
export interface Refusal {
  content: string;
  status: number;
  retryAfter: string | undefined;
  said: string;
}

export type SendLoad = ReturnType<typeof sendLoad>;

/** Sends through `api` from `senders` loops until stopped; what was acknowledged, and what was not. */
export function sendLoad(api: Pick<TestServer, 'api'>, token: string, channelId: string, senders = 3) {
  const acknowledged: { id: string; content: string; order: number }[] = [];
  const refused: Refusal[] = [];
  let running = true;
  let sent = 0;
  let started = 0;
  const answered = new EventEmitter();
  const loops = Array.from({ length: senders }, async (_, sender) => {
    for (let i = 0; running; i++) {
      const content = `load ${sender}.${i}`;
      const order = started++;
      const response = await api.api('POST', `/channels/${channelId}/messages`, { token, body: { content } }).catch((error: Error) => error);
      sent++;
      if (response instanceof Error) refused.push({ content, status: 0, retryAfter: undefined, said: response.message });
      else if (response.status === 200) acknowledged.push({ id: response.body.id, content, order });
      else refused.push({ content, status: response.status, retryAfter: response.headers['retry-after'] as string | undefined, said: response.text });
      answered.emit('answer');
    }
  });
  return {
    acknowledged,
    refused,
    /** How many sends were started so far: a send's `order` is how many were started before it. */
    get started() {
      return started;
    },
    /** Resolves once `count` more sends have been answered. */
    async after(count: number) {
      const target = sent + count;
      while (sent < target) await once(answered, 'answer');
    },
    /** Resolves once `count` more sends have been refused. */
    async refusedMore(count: number) {
      const target = refused.length + count;
      while (refused.length < target) await once(answered, 'answer');
    },
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** Every message of a channel, newest first, read in pages through `api`. */
export async function channelHistory(api: Pick<TestServer, 'api'>, token: string, channelId: string): Promise<{ id: string; content: string }[]> {
  const history: { id: string; content: string }[] = [];
  let before = '';
  for (;;) {
    const page = await api.api('GET', `/channels/${channelId}/messages?limit=100${before}`, { token });
    if (page.status !== 200) throw new Error(`reading the history: ${page.status} ${page.text}`);
    history.push(...page.body);
    if (page.body.length < 100) return history;
    before = `&before=${page.body.at(-1).id}`;
  }
}

/** Waits until `probe` holds, asking every 200 ms (an outer bound: what it waits for happens or the test fails). */
export async function until(probe: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`not so within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
