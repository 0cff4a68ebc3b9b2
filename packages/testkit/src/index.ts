export * from './external.js';
export * from './wait.js';
export * from './tempDir.js';
export * from './tmux.js';
export * from './geminiCli.js';
export * from './geminiHome.js';
export * from './fakeResponses.js';
export * from './mcpClient.js';
