// Given/when/then on deciders: given past events, when a command (decided at `at`, for rules that depend on the time),
// then the new events or a refusal by its code.
import { expect } from 'vitest';
import { type Decider, type DomainEvent, fold } from '../../domain/decider.js';
import { DomainError } from '../../domain/errors.js';

export function given<S, C, E extends DomainEvent>(decider: Decider<S, C, E>, events: E[]) {
  return {
    when: (command: C, at?: number) => ({
      then: (expected: E[]) => expect(decider.decide(command, fold(decider, events), at)).toEqual(expected),
      thenRefuses: (code: string) => {
        try {
          decider.decide(command, fold(decider, events), at);
        } catch (error) {
          expect(error).toBeInstanceOf(DomainError);
          expect((error as DomainError).code).toBe(code);
          return error as DomainError;
        }
        throw new Error(`expected ${code}`);
      },
    }),
  };
}
