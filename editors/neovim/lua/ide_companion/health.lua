-- :checkhealth ide_companion. Neovim 0.7 finds lua/<name>/health.lua too, but
-- has no vim.health: it reports through the health#report_* functions. 0.8
-- and 0.9 have vim.health.report_*, 0.10+ vim.health.start/ok/...
local M = {}

local MIN_NODE_MAJOR = 20

local function reporter()
  local h = vim.health
  if h and h.start then
    return { start = h.start, ok = h.ok, warn = h.warn, error = h.error, info = h.info }
  elseif h and h.report_start then
    return { start = h.report_start, ok = h.report_ok, warn = h.report_warn, error = h.report_error, info = h.report_info }
  end
  local function fn(name)
    return function(msg, advice)
      if advice then
        vim.fn['health#report_' .. name](msg, advice)
      else
        vim.fn['health#report_' .. name](msg)
      end
    end
  end
  return { start = fn('start'), ok = fn('ok'), warn = fn('warn'), error = fn('error'), info = fn('info') }
end

--- "v20.19.0" -> 20, or nil.
local function node_major(version)
  return tonumber((version or ''):match('^v?(%d+)%.'))
end

function M.check()
  local r = reporter()
  local ic = require('ide_companion')
  local host = require('ide_companion.host')
  local cfg = ic._cfg()

  r.start('ide-companion: requirements')
  if vim.fn.has('nvim-0.7') == 1 then
    r.ok('Neovim ' .. tostring(vim.version().major) .. '.' .. vim.version().minor .. '.' .. vim.version().patch)
  else
    r.error('Neovim 0.7 or newer is needed')
  end
  if vim.fn.executable(cfg.node) ~= 1 then
    r.error('Node.js not found: ' .. cfg.node, { 'Install Node.js >= 20, or set the `node` option to its path' })
  else
    local version = vim.fn.trim(vim.fn.system({ cfg.node, '--version' }))
    local major = node_major(version)
    if vim.v.shell_error ~= 0 or not major then
      r.error('could not run ' .. cfg.node .. ' --version: ' .. version)
    elseif major < MIN_NODE_MAJOR then
      r.error('Node.js ' .. version .. ' is too old', { 'ide-companion needs Node.js >= ' .. MIN_NODE_MAJOR })
    else
      r.ok('Node.js ' .. version .. ' (' .. vim.fn.exepath(cfg.node) .. ')')
    end
  end
  if vim.fn.filereadable(cfg.host) == 1 then
    r.ok('host: ' .. cfg.host .. ' (' .. cfg.host_origin .. ')')
  else
    r.error('host script missing: ' .. cfg.host, {
      'From git: run `npm install` in the repository (the plugin manager\'s build step, editors/neovim/README.md)',
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
  local s = host.state
  if s.status ~= 'running' or not s.info then
    local advice = { 'Run :GeminiStart; the log is ' .. cfg.log_file }
    if s.last_error then
      r.error('not running (' .. s.status .. '): ' .. s.last_error, advice)
    else
      r.warn('not running (' .. s.status .. ')', advice)
    end
    return
  end
  r.ok(string.format('running on 127.0.0.1:%d, host pid %d, version %s', s.info.port, s.info.hostPid, s.info.version))
  local file = s.info.discoveryFile
  if file and vim.fn.filereadable(file) == 1 then
    local pid = tonumber(vim.fn.fnamemodify(file, ':t'):match('^gemini%-ide%-server%-(%d+)%-'))
    if pid == vim.fn.getpid() then
      r.ok('discovery file: ' .. file)
    else
      r.warn('discovery file names pid ' .. tostring(pid) .. ', not this Neovim (' .. vim.fn.getpid() .. '): ' .. file)
    end
  else
    r.error('discovery file missing: ' .. tostring(file), { 'Gemini CLI cannot find this Neovim; run :GeminiStop and :GeminiStart' })
  end
  r.info('workspace: ' .. (s.info.workspacePath or ''))
  if vim.env.GEMINI_CLI_IDE_PID == tostring(vim.fn.getpid()) and vim.env.GEMINI_CLI_IDE_SERVER_PORT == tostring(s.info.port) then
    r.ok('terminals get GEMINI_CLI_IDE_PID=' .. vim.env.GEMINI_CLI_IDE_PID .. ' and the port')
  else
    r.warn('the terminal environment is not set: gemini in :terminal may connect elsewhere')
  end
  if s.info.socketPath and vim.fn.getftype(s.info.socketPath) == 'socket' then
    r.ok('socket: ' .. s.info.socketPath)
    r.info('gemini in a container, --sandbox or over SSH connects through it: `ide-companion container`, `sandbox` or `ssh HOST` (docs/remote.md)')
  elseif s.info.socketPath then
    r.warn('socket missing: ' .. s.info.socketPath, { 'gemini elsewhere cannot reach this Neovim; run :GeminiStop and :GeminiStart' })
  else
    r.info('no socket (see :GeminiLog): gemini in a container or over SSH cannot reach this Neovim')
  end
  if s.info.containerHint then
    r.warn('container: gemini would dial host.docker.internal', { s.info.containerHint })
  end
  r.info('agents served: ' .. table.concat(s.info.agents or { 'Gemini CLI' }, ', ') .. " (setup's `agents` chooses)")
  local n = #s.sessions
  r.info(string.format('%d CLI session%s connected', n, n == 1 and '' or 's'))
end

return M
