/**
 * @ide-companion/client: the CLI side of Gemini CLI's IDE integration, as a
 * library other agents can embed. Start with CompanionClient (it is also
 * the architecture doc's integration layers: docs/client.md maps the names);
 * discoverCompanion explains the choice.
 */
export * from './version.js';
export * from './processTree.js';
export * from './paths.js';
export * from './discoveryFiles.js';
export * from './discovery.js';
export * from './transport.js';
export * from './httpTransport.js';
export * from './connection.js';
export * from './contextStore.js';
export * from './diffs.js';
export * from './companionClient.js';
export * from './ideDetection.js';
export * from './status.js';
export * from './companions.js';
