export * from './driver.js';
export * from './faces.js';
export * from './scenarios.js';
export * from './suite.js';
export * from './fuzz.js';
export * from './realAgents.js';
export * from './agentTerminal.js';
