/**
 * A schema built on first use. Every host loads the whole protocol at start,
 * and most of its schemas serve only once an editor reports or a CLI connects:
 * building all of them was ~10 ms of every start (docs/benchmarks.md). The
 * proxy stands for the schema itself (same type, methods and `_zod`), so
 * callers, other schemas and the MCP SDK use it as they would the schema.
 *
 * Every call is annotated `@__PURE__`: bundles then drop the schemas they do
 * not use, and zod with the last of them (a release command that takes only
 * a module's constants parses no zod).
 */
export function lazySchema<T extends object>(build: () => T): T {
  let built: T | undefined;
  const schema = (): T => (built ??= build());
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(schema(), key),
    set: (_, key, value) => Reflect.set(schema(), key, value),
    has: (_, key) => Reflect.has(schema(), key),
    ownKeys: () => Reflect.ownKeys(schema()),
    // Reported configurable: the proxy's own (empty) target must not be bound by the schema's descriptors.
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(schema(), key);
      return descriptor && { ...descriptor, configurable: true };
    },
    defineProperty: (_, key, descriptor) => Reflect.defineProperty(schema(), key, descriptor),
    deleteProperty: (_, key) => Reflect.deleteProperty(schema(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(schema()),
  });
}
