-- :checkhealth ide_companion. What must hold for the host to start is checked
-- here; a running companion's items are the host's, made when asked
-- (packages/server/src/healthLines.ts). Neovim 0.7 has no vim.health (it reports
-- through health#report_*), 0.8 and 0.9 have vim.health.report_*, 0.10+ start/ok/...
local M = {}

local function reporter()
  local h, r = vim.health, {}
  for _, name in ipairs({ 'start', 'ok', 'warn', 'error', 'info' }) do
    r[name] = h and (h[name] or h['report_' .. name])
      or function(msg, advice)
        vim.fn['health#report_' .. name](msg, unpack(advice and { advice } or {}))
      end
  end
  return r
end

function M.check()
  local r = reporter()
  local cfg = require('ide_companion')._cfg()
  local s = require('ide_companion.host').state
  r.start('ide-companion: requirements')
  local v = vim.version()
  r.ok(string.format('Neovim %d.%d.%d', v.major, v.minor, v.patch))
  if vim.fn.executable(cfg.node) == 1 then
    r.ok('Node.js found: ' .. vim.fn.exepath(cfg.node) .. ' (the host checks its version: >= 20)')
  else
    r.error('Node.js not found: ' .. cfg.node, { 'Install Node.js >= 20, or set the `node` option to its path' })
  end
  if vim.fn.filereadable(cfg.host) == 1 then
    r.ok('host: ' .. cfg.host .. ' (' .. cfg.host_origin .. ')')
  else
    r.error('host script missing: ' .. cfg.host, {
      "From git: run `npm install` in the repository (the plugin manager's build step, editors/neovim/README.md)",
      'Or install the ide-companion package (npm install -g), whose host is found through `ide-companion` on PATH',
      'Or fix the `host` option',
    })
  end
  if vim.fn.executable('gemini') == 1 then
    r.ok('gemini: ' .. vim.fn.exepath('gemini'))
  else
    r.warn('`gemini` is not on PATH', { 'npm install -g @google/gemini-cli, or set terminal.cmd' })
  end
  r.start('ide-companion: companion')
  if s.status ~= 'running' then
    local advice = { 'Run :GeminiStart; the log is ' .. cfg.log_file }
    return (s.last_error and r.error or r.warn)('not running (' .. s.status .. ')' .. (s.last_error and ': ' .. s.last_error or ''), advice)
  end
  local items = require('ide_companion.host').health()
  if not items then
    return r.error('the host did not answer within 2 s', { 'Its log is ' .. cfg.log_file })
  end
  for _, item in ipairs(items) do
    r[item.level](item.text, item.advice)
  end
end

return M
