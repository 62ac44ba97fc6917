// In this process, commands on one stream queue behind each other instead of racing for the same revision (a popular
// message takes many reactions at once); between processes the command handler's retry still decides.
import type { Decider, DomainEvent } from '../domain/decider.js';
import { type ActorMeta, type Uses, metadata } from './deps.js';

const queues = new Map<string, Promise<unknown>>();

/** Runs `run` after this process's earlier work under the same key (a stream id, or any other key that names a queue). */
export function queued<T>(key: string, run: () => Promise<T>): Promise<T> {
  const next = (queues.get(key) ?? Promise.resolve()).catch(() => undefined).then(run);
  queues.set(key, next);
  const forget = () => {
    if (queues.get(key) === next) queues.delete(key);
  };
  next.then(forget, forget);
  return next;
}

/** Decides and appends a command on its stream, after this process's earlier commands on that stream. */
export function handleInOrder<State, Command, Event extends DomainEvent>(
  deps: Uses<'commands' | 'clock'>,
  meta: ActorMeta,
  streamId: string,
  decider: Decider<State, Command, Event>,
  command: Command,
) {
  return queued(streamId, () => deps.commands.handle(streamId, decider, command, metadata(meta, deps.clock)));
}
