// Data the adapters keep in memory and hand to every reader (parsed documents, recent events) is shared: frozen, so a
// reader that changed it would fail instead of changing it for all the others.

export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
