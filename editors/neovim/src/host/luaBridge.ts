/** Host -> editor calls: one `nvim_exec_lua` request per call into the plugin's Lua modules. */
import type { NeovimClient } from 'neovim';

/**
 * `value` without the object keys that hold undefined, at any depth. msgpack
 * has no undefined: it would arrive as nil, which Lua sees in a table as
 * vim.NIL (truthy), so `params.column or 1` did arithmetic on it. Absent stays absent.
 */
export function withoutUndefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutUndefined);
  if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = withoutUndefined(v);
  return out;
}

export class LuaBridge {
  constructor(private readonly nvim: Pick<NeovimClient, 'request'>) {}

  /** `require(module)[fn](...args)` in Neovim; resolves to its return value (Lua nil is null). */
  call<T = unknown>(module: string, fn: string, ...args: unknown[]): Promise<T> {
    const code = `return require(${JSON.stringify(module)})[${JSON.stringify(fn)}](...)`;
    return this.nvim.request('nvim_exec_lua', [code, args.map(withoutUndefined)]) as Promise<T>;
  }
}
