-- Gemini CLI in a split terminal, tied to this Neovim. The GEMINI_CLI_IDE_*
-- variables are also in vim.env once the companion listens, so every
-- :terminal (and :!cmd, jobstart) started after that inherits them.
local host = require('ide_companion.host')

local M = {}

--- Opens the CLI (cfg.terminal.cmd plus `args`) in a split; waits for the companion if it is starting.
function M.open(cfg, args)
  local cmd = vim.list_extend(vim.deepcopy(cfg.terminal.cmd), args or {})
  local function run()
    vim.cmd(cfg.terminal.split)
    vim.cmd('enew')
    -- The env explicitly too: a terminal must name this Neovim even if vim.env was changed since.
    if vim.fn.has('nvim-0.11') == 1 then
      vim.fn.jobstart(cmd, { term = true, env = host.state.env })
    else
      vim.fn.termopen(cmd, { env = host.state.env })
    end
    vim.cmd('startinsert')
  end
  if host.when_ready(run) then
    return true
  end
  vim.notify('ide-companion: the companion is not running (:GeminiStart)', vim.log.levels.ERROR)
  return false
end

return M
