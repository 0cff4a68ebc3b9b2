// An ACP agent for bench/acp-agent.mjs, on raw JSON lines: each session/prompt is answered with
// CHUNKS agent_message_chunk updates, PAUSE_MS apart, each text `<mark:i:SENT>` with SENT the wall
// clock in ms (performance.timeOrigin + now) as it is written; then end_turn.
const [chunksArg = '20', pauseArg = '20'] = process.argv.slice(2);
const CHUNKS = Number(chunksArg);
const PAUSE_MS = Number(pauseArg);
const send = (m) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function onPrompt(id, sessionId) {
  for (let i = 0; i < CHUNKS; i++) {
    await sleep(PAUSE_MS);
    const text = `<mark:${i}:${now().toFixed(3)}>\n`;
    send({ method: 'session/update', params: { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } } });
  }
  send({ id, result: { stopReason: 'end_turn' } });
}

let buffered = '';
process.stdin.setEncoding('utf8').on('data', (data) => {
  buffered += data;
  let nl;
  while ((nl = buffered.indexOf('\n')) >= 0) {
    const line = buffered.slice(0, nl);
    buffered = buffered.slice(nl + 1);
    if (!line.trim()) continue;
    const m = JSON.parse(line);
    if (m.method === 'initialize')
      send({ id: m.id, result: { protocolVersion: 1, agentCapabilities: {}, agentInfo: { name: 'bench-agent', version: '1' }, authMethods: [] } });
    else if (m.method === 'session/new') send({ id: m.id, result: { sessionId: 's1' } });
    else if (m.method === 'session/prompt') void onPrompt(m.id, m.params.sessionId);
    else if (m.id !== undefined && m.method) send({ id: m.id, result: null });
  }
});
process.stdin.on('end', () => process.exit(0));
