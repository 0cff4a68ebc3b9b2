/** Host -> editor calls: one `nvim_exec_lua` request per call into the plugin's Lua modules. */
import type { NeovimClient } from 'neovim';

export class LuaBridge {
  constructor(private readonly nvim: NeovimClient) {}

  /** `require(module)[fn](...args)` in Neovim; resolves to its return value (Lua nil is null). */
  call<T = unknown>(module: string, fn: string, ...args: unknown[]): Promise<T> {
    const code = `return require(${JSON.stringify(module)})[${JSON.stringify(fn)}](...)`;
    return this.nvim.request('nvim_exec_lua', [code, args]) as Promise<T>;
  }
}
