/** The MCP SDK's server side, loaded once, on first use (see sdk.ts). */
type Sdk = typeof import('./sdk.js');

let loading: Promise<Sdk> | undefined;

export function loadSdk(): Promise<Sdk> {
  loading ??= import('./sdk.js');
  return loading;
}
