// Test-only extension, loaded with extensionDevelopmentPath by test/codeServer.ts.
// It serves POST /eval on 127.0.0.1 (a random port): the body is the text of an
// async function body run with `vscode` in scope; its JSON result is the answer.
// The port goes to $IDE_COMPANION_VSCODE_DRIVER_DIR/driver-<pid>.json, one file
// per extension host (one per browser window).
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- VS Code 1.100 loads extensions with require() */
const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');
const vscode = require('vscode');

const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor;
let server;
let file;

exports.activate = function activate() {
  const dir = process.env.IDE_COMPANION_VSCODE_DRIVER_DIR;
  if (!dir) return;
  server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (body += chunk));
    req.on('end', async () => {
      try {
        const { code, args } = JSON.parse(body);
        const result = await new AsyncFunction('vscode', 'args', 'require', code)(vscode, args ?? {}, require);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ result: result === undefined ? null : result }));
      } catch (err) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: String((err && err.stack) || err) }));
      }
    });
  });
  server.listen(0, '127.0.0.1', () => {
    file = path.join(dir, `driver-${process.pid}.json`);
    fs.writeFileSync(file, JSON.stringify({ port: server.address().port, pid: process.pid, ppid: process.ppid }));
  });
};

exports.deactivate = function deactivate() {
  if (file) fs.rmSync(file, { force: true });
  server?.close();
};
