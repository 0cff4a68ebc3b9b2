/**
 * What the companion uses of the MCP SDK's server side. Loaded when the first
 * request comes (lazySdk.ts), not at start: a companion no CLI has connected to
 * yet never evaluates the SDK's schemas and validators (start time, memory;
 * docs/benchmarks.md). Import values from here only through `loadSdk()`.
 */
export { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
export { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
export { MAX_BATCH_SIZE } from '@modelcontextprotocol/sdk/server/requestBody.js';
export { isInitializeRequest, isJSONRPCRequest, JSONRPCMessageSchema, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
