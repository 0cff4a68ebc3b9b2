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
  private gone = false;
  /** How to fail each call still waiting for Neovim's answer. */
  private readonly pending = new Set<(err: Error) => void>();

  constructor(private readonly nvim: Pick<NeovimClient, 'request'>) {}

  /** `require(module)[fn](...args)` in Neovim; resolves to its return value (Lua nil is null). */
  call<T = unknown>(module: string, fn: string, ...args: unknown[]): Promise<T> {
    if (this.gone) return Promise.reject(new Error('Neovim is gone'));
    const code = `return require(${JSON.stringify(module)})[${JSON.stringify(fn)}](...)`;
    return new Promise<T>((resolve, reject) => {
      this.pending.add(reject);
      (this.nvim.request('nvim_exec_lua', [code, args.map(withoutUndefined)]) as Promise<T>).then(resolve, reject).finally(() => this.pending.delete(reject));
    });
  }

  /**
   * Neovim went away (killed, or its channel closed): every call, waiting or
   * later, fails at once rather than waiting for an answer that cannot come,
   * so the host's stop (closing open diffs in Neovim) ends without delay.
   */
  close(): void {
    this.gone = true;
    for (const fail of this.pending) fail(new Error('Neovim is gone'));
    this.pending.clear();
  }
}
