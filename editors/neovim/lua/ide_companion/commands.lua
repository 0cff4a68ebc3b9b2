-- User commands. Defined by plugin/ide_companion.lua and by setup(), whichever comes first.
local M = {}

local defined = false

--- A command that runs diff.<action>(id) on the diff of the current tab (or the only one).
local function diff_command(action)
  return function()
    local diff = require('ide_companion.diff')
    local d, count = diff.current()
    if d then
      return diff[action](d.id)
    end
    local why = (count or 0) == 0 and 'no diff is open' or "several diffs are open; run this in the diff's tab"
    require('ide_companion.host').say(why, vim.log.levels.WARN)
  end
end

function M.define()
  if defined then
    return
  end
  defined = true
  local function command(name, fn, opts)
    vim.api.nvim_create_user_command(name, fn, opts or {})
  end
  command('GeminiStatus', function()
    print(table.concat(require('ide_companion').status_lines(), '\n'))
  end, { desc = 'ide-companion: show the companion, its port and the connected Gemini CLIs' })
  command('GeminiStart', function()
    require('ide_companion').start()
  end, { desc = 'ide-companion: start the companion' })
  command('GeminiStop', function()
    require('ide_companion').stop()
  end, { desc = 'ide-companion: stop the companion (removes its discovery file)' })
  command('GeminiAccept', diff_command('accept'), { desc = 'ide-companion: accept the diff (with your edits)' })
  command('GeminiReject', diff_command('reject'), { desc = 'ide-companion: reject the diff' })
  command('GeminiSend', function(args)
    require('ide_companion').send_to_agent(args.range > 0 and args.line1 or nil, args.range > 0 and args.line2 or nil)
  end, { range = true, desc = 'ide-companion: send the file, or the selected lines, to Claude Code (at_mentioned)' })
  local function terminal(kind)
    return function(args)
      local ic = require('ide_companion')
      if not require('ide_companion.host').state.job then
        ic.start()
      end
      require('ide_companion.terminal').open(ic._cfg(), args.fargs, kind)
    end
  end
  command('Gemini', terminal('gemini'), { nargs = '*', desc = 'ide-companion: open Gemini CLI in a split terminal' })
  command('IdeAgent', terminal('agent'), { nargs = '*', desc = 'ide-companion: open an ACP agent (agent_command, or the arguments) under `ide-companion agent`' })
end

return M
