-- The Node host: started as an RPC job, talked to with rpcnotify only (never
-- rpcrequest, so nothing here can block typing), and calling back into the
-- on_* functions below through nvim_exec_lua.
local M = {}

local STDERR_LINES_KEPT = 40
local STOP_GRACE_MS = 3000
-- A host that keeps dying is left stopped: 5 deaths within 3 minutes, like language clients.
local MAX_DEATHS = 5
local DEATH_WINDOW_S = 180
local deaths = {}

-- status: 'stopped' | 'starting' | 'running' | 'stopping'
M.state = {
  status = 'stopped',
  job = nil,
  info = nil, -- what the host reported in on_started
  env = nil, -- GEMINI_CLI_IDE_* currently exported into vim.env
  sessions = {},
  stderr = {},
  last_error = nil,
}
local state = M.state
local ready_callbacks = {}
local listeners = { started = {}, stopped = {} }

local function notify(msg, level)
  vim.notify('ide-companion: ' .. msg, level or vim.log.levels.INFO)
end

local function emit(event)
  for _, fn in ipairs(listeners[event]) do
    pcall(fn)
  end
end

--- Registers fn for "started" (the companion listens) or "stopped" (the host is gone).
function M.on(event, fn)
  table.insert(listeners[event], fn)
end

local function apply_env(env)
  for key in pairs(state.env or {}) do
    if env == nil or env[key] == nil then
      vim.env[key] = nil
    end
  end
  for key, value in pairs(env or {}) do
    vim.env[key] = value
  end
  state.env = env
end

local function keep_stderr(lines)
  for _, line in ipairs(lines) do
    if line ~= '' then
      table.insert(state.stderr, line)
      if #state.stderr > STDERR_LINES_KEPT then
        table.remove(state.stderr, 1)
      end
    end
  end
end

local function reset(job)
  if state.job ~= job then
    return
  end
  local was = state.status
  state.status = 'stopped'
  state.job = nil
  state.info = nil
  state.sessions = {}
  apply_env(nil)
  ready_callbacks = {}
  if was ~= 'stopped' then
    emit('stopped')
  end
end

--- The dead host's discovery file, and its socket folder (TMP/ide-companion-UID/PID-PORT: only that shape).
local function remove_files_of(info)
  if not info then
    return
  end
  local file = info.discoveryFile
  if type(file) == 'string' and vim.fn.fnamemodify(file, ':t'):match('^gemini%-ide%-server%-%d+%-%d+%.json$') then
    os.remove(file)
  end
  if type(info.socketPath) == 'string' then
    local dir = vim.fn.fnamemodify(info.socketPath, ':h')
    if vim.fn.fnamemodify(dir, ':t'):match('^%d+%-%d+$') and vim.fn.fnamemodify(dir, ':h:t'):match('^ide%-companion%-%d+$') then
      vim.fn.delete(dir, 'rf')
    end
  end
end

--- A running host died unasked (killed, out of memory, crashed): its discovery
--- file and socket folder go now (it could not remove them, and the discovery
--- file names this Neovim, which lives on), the proposals stay for the user, and
--- a new host starts at once; after too many deaths it is left stopped. One
--- line says what happened, never the host's raw log (that stays in :GeminiLog).
local function died(job, code)
  local info = state.info
  local kept = require('ide_companion.diff').keep_all()
  reset(job)
  remove_files_of(info)
  local now = os.time()
  local recent = {}
  for _, t in ipairs(deaths) do
    if now - t < DEATH_WINDOW_S then
      table.insert(recent, t)
    end
  end
  table.insert(recent, now)
  deaths = recent
  local proposals = require('ide_companion.diff').kept_words(kept)
  if #deaths >= MAX_DEATHS then
    state.last_error = string.format('the companion host stopped %d times in %d minutes (exit code %d); it is not restarted', #deaths, DEATH_WINDOW_S / 60, code)
    notify(state.last_error .. proposals .. '. :GeminiStart tries again, :checkhealth ide_companion tells why', vim.log.levels.ERROR)
    return
  end
  state.last_error = string.format('the companion host stopped (exit code %d) and was restarted', code)
  notify(state.last_error .. proposals, vim.log.levels.WARN)
  -- Back off as it keeps dying: 0, 0.5, 1, 2 s.
  local delay = #deaths == 1 and 0 or 250 * 2 ^ (#deaths - 1)
  vim.defer_fn(function()
    require('ide_companion').start()
  end, delay)
end

--- Sends a notification to the host; false when it is not running.
function M.notify(method, payload)
  if not state.job then
    return false
  end
  local ok = pcall(vim.rpcnotify, state.job, method, payload)
  return ok
end

--- Sends an editor event (the vocabulary of docs/editor-protocol.md); false when the host is not running.
function M.event(ev)
  return M.notify('event', ev)
end

--- A cursor move in the file of the last `focus` or `cursor` event sent: the
--- host adds that path. Numbers rather than an event table: less to convert
--- and encode on every reported move. The anchor and kind, in Visual mode, are
--- the event's `anchor` and `selectionKind`.
function M.cursor(line, character, anchor_line, anchor_character, kind)
  if not state.job then
    return false
  end
  return (pcall(vim.rpcnotify, state.job, 'cursor', line, character, anchor_line, anchor_character, kind))
end

function M.is_running()
  return state.status == 'running'
end

--- Runs fn once the companion listens; false if it is not starting or running.
function M.when_ready(fn)
  if state.status == 'running' then
    fn()
    return true
  elseif state.status == 'starting' then
    table.insert(ready_callbacks, fn)
    return true
  end
  return false
end

--- Starts the host. `hello` is its first message (pid, roots, capabilities, ...).
function M.start(cfg, hello)
  if state.job then
    return true
  end
  if vim.fn.executable(cfg.node) ~= 1 then
    state.last_error = 'Node.js not found: ' .. cfg.node .. ' (set the `node` option; Node >= 20 is needed)'
    notify(state.last_error, vim.log.levels.ERROR)
    return false
  end
  if vim.fn.filereadable(cfg.host) ~= 1 then
    state.last_error = 'host script not found: ' .. cfg.host
    notify(state.last_error, vim.log.levels.ERROR)
    return false
  end
  state.stderr = {}
  state.last_error = nil
  local job
  job = vim.fn.jobstart({ cfg.node, cfg.host }, {
    rpc = true,
    on_stderr = function(_, data)
      keep_stderr(data)
    end,
    on_exit = function(_, code)
      if state.job == job and state.status == 'running' then
        return died(job, code)
      end
      local expected = state.status == 'stopping'
      if state.job == job and not expected and code ~= 0 then
        state.last_error = string.format('host exited with code %d: %s', code, table.concat(state.stderr, ' | '))
        notify(state.last_error, vim.log.levels.ERROR)
      end
      reset(job)
    end,
  })
  if job <= 0 then
    state.last_error = 'could not start ' .. cfg.node
    notify(state.last_error, vim.log.levels.ERROR)
    return false
  end
  state.job = job
  state.status = 'starting'
  -- Neovim ends its jobs when it exits: that exit is expected, not an error to show.
  vim.api.nvim_create_autocmd('VimLeavePre', {
    group = vim.api.nvim_create_augroup('ide_companion_host', { clear = true }),
    callback = function()
      if state.job then
        state.status = 'stopping'
      end
    end,
  })
  -- Queued in the pipe until the host attaches; it then handles messages in order.
  M.notify('hello', hello)
  return true
end

--- Asks the host to stop (it removes its discovery file, then exits); kills it if it does not.
function M.stop()
  local job = state.job
  if not job then
    return false
  end
  state.status = 'stopping'
  M.notify('stop', {})
  vim.defer_fn(function()
    if state.job == job then
      pcall(vim.fn.jobstop, job)
    end
  end, STOP_GRACE_MS)
  return true
end

-- Called by the host -------------------------------------------------------

function M.on_started(info)
  if state.status ~= 'starting' then
    return false
  end
  state.status = 'running'
  state.info = info
  require('ide_companion.diff').set_words(info.words)
  apply_env(info.env)
  local callbacks = ready_callbacks
  ready_callbacks = {}
  for _, fn in ipairs(callbacks) do
    local ok, err = pcall(fn)
    if not ok then
      notify(tostring(err), vim.log.levels.ERROR)
    end
  end
  emit('started')
  return true
end

--- The roots changed: the workspace path in the terminal env with them.
function M.on_env(env, workspace_path)
  if state.status ~= 'running' then
    return false
  end
  apply_env(env)
  if state.info then
    state.info.env = env
    state.info.workspacePath = workspace_path
  end
  return true
end

function M.on_sessions(sessions)
  state.sessions = sessions
  return true
end

--- A mention no connected agent took (it went away meanwhile).
function M.on_unheard_mention(path)
  vim.notify('ide-companion: no Claude Code took ' .. vim.fn.fnamemodify(path, ':~:.') .. ': none is connected', vim.log.levels.WARN)
  return true
end

--- Something the user should know that stops nothing (a workspace folder refused).
function M.on_warning(message)
  notify(tostring(message), vim.log.levels.WARN)
  return true
end

function M.on_failed(message)
  state.last_error = 'companion failed to start: ' .. tostring(message)
  notify(state.last_error, vim.log.levels.ERROR)
  return true
end

return M
