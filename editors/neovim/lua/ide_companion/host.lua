-- The Node host: an RPC job, sent rpcnotify only (no rpcrequest: nothing here can block typing),
-- calling back into the on_* functions below through nvim_exec_lua.
local M = {}

-- The exit code of a host that gave up (protocol hostRestarts.ts): it is not started again.
local GAVE_UP = 75
-- For the host started after a death: how the last one ended and what was kept (the new host says it).
local restart_env = nil

M.state = {
  status = 'stopped', -- 'stopped' | 'starting' | 'running' | 'stopping'
  job = nil,
  info = nil, -- what the host reported in on_started
  env = nil, -- GEMINI_CLI_IDE_* currently exported into vim.env
  sessions = {},
  report = nil, -- the host's :GeminiStatus lines (statusReport.ts)
  words = nil, -- the host's words, kept for when it is gone
  stderr = {},
  last_error = nil,
}
local state = M.state
local ready_callbacks = {}

--- Every message of the plugin.
function M.say(msg, level)
  vim.notify('ide-companion: ' .. msg, level or vim.log.levels.INFO)
end
local notify = M.say

--- `template` with `value` put for `key`, literally (never a format string).
function M.put(template, key, value)
  return (template:gsub(key, function()
    return value
  end))
end

--- The host's words (on_started), kept for when it is gone.
function M.word(name)
  return (state.words or {})[name] or name
end

local function fail(msg)
  state.last_error = msg
  notify(msg, vim.log.levels.ERROR)
  return false
end

local function apply_env(env)
  for key in pairs(state.env or {}) do
    vim.env[key] = nil
  end
  for key, value in pairs(env or {}) do
    vim.env[key] = value
  end
  state.env = env
end

local function reset(job)
  if state.job ~= job then
    return
  end
  local was = state.status
  state.status, state.job, state.info, state.report, state.sessions = 'stopped', nil, nil, nil, {}
  apply_env(nil)
  ready_callbacks = {}
  if was ~= 'stopped' then
    -- Its diffs can no longer be answered.
    require('ide_companion.context').detach()
    require('ide_companion.diff').close_all()
  end
end

--- A running host died unasked: its reaper removes its files, the proposals stay, and a new host
--- starts, told how this one ended; it counts, backs off and says so (server/hostRestarts.ts).
local function died(job, code)
  local kept = require('ide_companion.diff').keep_all()
  reset(job)
  restart_env = { IDE_COMPANION_HOST_DIED = tostring(code), IDE_COMPANION_HOST_KEPT = vim.json.encode(kept) }
  vim.schedule(function()
    require('ide_companion').start()
  end)
end

--- Sends a notification to the host; false when it is not running.
function M.notify(method, ...)
  return state.job ~= nil and (pcall(vim.rpcnotify, state.job, method, ...))
end

--- Sends an editor event (docs/editor-protocol.md); false when the host is not running.
function M.event(ev)
  return M.notify('event', ev)
end

--- A cursor move in the file of the last focus or cursor sent (the host adds
--- its path): numbers, no table, on every reported move.
function M.cursor(...)
  return M.notify('cursor', ...)
end

function M.is_running()
  return state.status == 'running'
end

--- Runs fn once the companion listens; false if it is not starting or running.
function M.when_ready(fn)
  if state.status == 'running' then
    fn()
  elseif state.status == 'starting' then
    table.insert(ready_callbacks, fn)
  end
  return state.status == 'running' or state.status == 'starting'
end

--- Starts the host. `hello` is its first message (pid, roots, capabilities, ...).
function M.start(cfg, hello)
  if state.job then
    return true
  end
  local env
  env, restart_env = restart_env, nil
  if vim.fn.executable(cfg.node) ~= 1 then
    return fail('Node.js not found: ' .. cfg.node .. ' (set the `node` option; Node >= 20 is needed)')
  end
  if vim.fn.filereadable(cfg.host) ~= 1 then
    return fail('host script not found: ' .. cfg.host)
  end
  state.stderr, state.last_error = {}, nil
  local job
  job = vim.fn.jobstart({ cfg.node, cfg.host }, {
    rpc = true,
    env = env,
    on_stderr = function(_, data)
      -- The last 40 lines, for the message of a host that fails.
      vim.list_extend(state.stderr, vim.tbl_filter(function(l)
        return l ~= ''
      end, data))
      state.stderr = vim.list_slice(state.stderr, math.max(1, #state.stderr - 39))
    end,
    on_exit = function(_, code)
      if state.job == job and state.status == 'running' then
        return died(job, code)
      end
      if state.job == job and state.status ~= 'stopping' and code ~= 0 and code ~= GAVE_UP then
        fail(string.format('host exited with code %d: %s', code, table.concat(state.stderr, ' | ')))
      end
      reset(job)
    end,
  })
  if job <= 0 then
    return fail('could not start ' .. cfg.node)
  end
  state.job, state.status = job, 'starting'
  -- Neovim ends its jobs when it exits: that exit is expected, not an error to show.
  vim.api.nvim_create_autocmd('VimLeavePre', {
    group = vim.api.nvim_create_augroup('ide_companion_host', { clear = true }),
    callback = function()
      state.status = state.job and 'stopping' or state.status
    end,
  })
  -- Queued in the pipe until the host attaches; it then handles messages in order.
  M.notify('hello', hello)
  return true
end

--- Asks the host to stop (it removes its discovery file, then exits); kills it after 3 s if it does not.
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
  end, 3000)
  return true
end

-- Called by the host -------------------------------------------------------

function M.on_started(info)
  if state.status ~= 'starting' then
    return false
  end
  state.status, state.info, state.words, state.report = 'running', info, info.words, info.report
  apply_env(info.env)
  local callbacks = ready_callbacks
  ready_callbacks = {}
  for _, fn in ipairs(callbacks) do
    xpcall(fn, function(err)
      notify(tostring(err), vim.log.levels.ERROR)
    end)
  end
  pcall(require('ide_companion.context').attach, require('ide_companion')._cfg())
  return true
end

--- The roots changed: the workspace path in the terminal env with them.
function M.on_env(env, workspace_path, report)
  if state.status ~= 'running' then
    return false
  end
  apply_env(env)
  state.info.env, state.info.workspacePath, state.report = env, workspace_path, report
  return true
end

function M.on_sessions(sessions, report)
  state.sessions, state.report = sessions, report or state.report
  return true
end

--- The host's :checkhealth items, made now (its files checked, this Neovim's
--- terminal env beside its own); nil if it does not answer within 2 s.
function M.health()
  local env = vim.empty_dict()
  for key in pairs(state.env or {}) do
    env[key] = vim.env[key] or ''
  end
  state.health = nil
  M.notify('health', env)
  vim.wait(2000, function()
    return state.health ~= nil
  end)
  return state.health
end

function M.on_health(items)
  state.health = items
  return true
end

--- The host's line on its start after a death: restarted ('warning'), or it gives up ('error').
function M.on_say(level, message)
  state.last_error = message
  notify(message, level == 'error' and vim.log.levels.ERROR or vim.log.levels.WARN)
  return true
end

--- Something the user should know that stops nothing (a workspace folder refused, a mention nobody took).
function M.on_warning(message)
  notify(tostring(message), vim.log.levels.WARN)
  return true
end

--- A mention no connected agent took (its path: what the soak's barrier waits on).
function M.on_unheard_mention(_, message)
  return M.on_warning(message)
end

function M.on_failed(message)
  fail('companion failed to start: ' .. tostring(message))
  return true
end

return M
