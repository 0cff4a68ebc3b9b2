-- The optional editor actions (docs/editor-protocol.md), called by the host (neovimEditor.ts, which
-- shapes what they return) when an agent uses the matching MCP tool: each reads or shows.
local context = require('ide_companion.context')

local M = {}

--- What this end declares in its hello: the companion offers a tool for each
--- (`reload`, answered by diff.lua, has none).
M.CAPABILITIES = { 'openFile', 'getOpenEditors', 'getSelection', 'getDiagnostics', 'checkDocumentDirty', 'saveDocument', 'reload' }

--- The listed buffer showing `path`, or nil (bufnr() matches patterns, so compare names).
local function buffer_of(path)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if context.open_file_of(buf) == path then
      return buf
    end
  end
end

--- Line `lnum` (0-based) of `buf`, if loaded.
local function line_at(buf, lnum)
  return vim.api.nvim_buf_is_loaded(buf) and vim.api.nvim_buf_get_lines(buf, lnum, lnum + 1, false)[1] or nil
end

local function chars_of(lnum)
  return vim.fn.strchars(vim.fn.getline(lnum))
end

--- openFile: in the current window unless it is a terminal or a diff, else another of this tab, else
--- a new split; positions as docs/editor-protocol.md says, clamped; `endColumn` is not selected.
function M.open_file(params)
  local win = vim.tbl_filter(function(w)
    return context.buf_option(vim.api.nvim_win_get_buf(w), 'buftype') == '' and not vim.api.nvim_win_get_option(w, 'diff')
  end, { vim.api.nvim_get_current_win(), unpack(vim.api.nvim_tabpage_list_wins(0)) })[1]
  if win then
    vim.api.nvim_set_current_win(win)
  else
    vim.cmd('aboveleft new')
  end
  vim.cmd('edit ' .. vim.fn.fnameescape(params.path))
  if type(params.line) ~= 'number' then
    return vim.NIL
  end
  local count = vim.api.nvim_buf_line_count(0)
  local lnum = math.min(math.max(params.line, 1), count)
  local char = math.min(math.max((type(params.column) == 'number' and params.column or 1) - 1, 0), chars_of(lnum)) + 1
  vim.fn.setcursorcharpos(lnum, char)
  if type(params.endLine) == 'number' then
    local elnum = math.min(math.max(params.endLine, lnum), count)
    local last = math.min((type(params.endColumn) == 'number' and params.endColumn or math.huge) - 1, chars_of(elnum))
    if last < 1 and elnum > lnum then
      -- Ends before the first character of a line: the selection ends with the line before.
      elnum = elnum - 1
      last = chars_of(elnum)
    end
    vim.fn.setcharpos("'<", { 0, lnum, char, 0 })
    vim.fn.setcharpos("'>", { 0, elnum, math.max(last, 1, elnum == lnum and char or 1), 0 })
    vim.cmd('normal! gv')
    if vim.api.nvim_get_mode().mode ~= 'v' then
      -- gv reuses the last selection's kind: make it charwise.
      vim.cmd('normal! v')
    end
  end
  vim.cmd('normal! zz')
  return vim.NIL
end

function M.open_editors()
  local current, editors = vim.api.nvim_get_current_buf(), {}
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    local path = context.open_file_of(buf)
    if path then
      local ft = context.buf_option(buf, 'filetype')
      table.insert(editors, {
        path = path,
        isActive = buf == current,
        isDirty = context.buf_option(buf, 'modified'),
        languageId = ft ~= '' and ft or nil,
        lineCount = vim.api.nvim_buf_is_loaded(buf) and vim.api.nvim_buf_line_count(buf) or nil,
      })
    end
  end
  return { editors = editors }
end

--- The selection: the live one in Visual mode, else the last one ('< and '>) of
--- the current file buffer, or of `active` (the host's active file: from the
--- agent's terminal), or of the alternate one. Its ends as Neovim has them (line,
--- 0-based byte) and its lines: the host makes the text and the characters.
function M.selection(active)
  local buf, mode = vim.api.nvim_get_current_buf(), vim.api.nvim_get_mode().mode
  local kind, s, e
  if context.open_file_of(buf) and (mode == 'v' or mode == 'V' or mode == '\22') then
    local v, dot = vim.fn.getpos('v'), vim.fn.getpos('.')
    kind, s, e = mode, { v[2], v[3] - 1 }, { dot[2], dot[3] - 1 }
  else
    buf = context.open_file_of(buf) and buf or active and buffer_of(active) or vim.fn.bufnr('#')
    if buf < 1 or not context.open_file_of(buf) then
      return vim.NIL
    end
    -- visualmode() is the buffer's own.
    kind, s, e = vim.api.nvim_buf_call(buf, vim.fn.visualmode), vim.api.nvim_buf_get_mark(buf, '<'), vim.api.nvim_buf_get_mark(buf, '>')
    if kind == '' or s[1] == 0 then
      return vim.NIL
    end
  end
  local first = math.min(s[1], e[1])
  local lines = vim.api.nvim_buf_get_lines(buf, first - 1, math.max(s[1], e[1]), false)
  return { path = context.open_file_of(buf), kind = kind, anchor = s, cursor = e, first = first, lines = lines }
end

--- vim.diagnostic of every buffer as Neovim has it, with the text of its lines: the host shapes it.
function M.diagnostics()
  local out = {}
  for _, d in ipairs(vim.diagnostic.get()) do
    local path = context.file_of(d.bufnr)
    if path then
      local e = d.end_lnum or d.lnum
      table.insert(out, { kind = 'nvim', path = path, lnum = d.lnum, col = d.col, end_lnum = e, end_col = d.end_col, severity = d.severity,
        message = d.message, source = d.source, code = d.code, line = line_at(d.bufnr, d.lnum), endLine = line_at(d.bufnr, e) })
    end
  end
  return out
end

function M.dirty(params)
  local buf = buffer_of(params.path)
  return { isOpen = buf ~= nil, isDirty = buf ~= nil and context.buf_option(buf, 'modified'), readOnly = buf ~= nil and context.buf_option(buf, 'readonly') }
end

function M.save(params)
  local buf = buffer_of(params.path)
  if not buf then
    return { saved = false, message = params.path .. ' is not open in Neovim' }
  elseif not context.buf_option(buf, 'modified') then
    return { saved = true, message = 'no unsaved changes' }
  end
  local ok, err = pcall(vim.api.nvim_buf_call, buf, function()
    vim.cmd('silent write')
  end)
  return ok and { saved = true } or { saved = false, message = tostring(err) }
end

--- closeFile (an openFile whose path was swapped meanwhile): the buffer goes unless modified.
function M.close_file(params)
  local buf = buffer_of(params.path)
  if buf and not context.buf_option(buf, 'modified') then
    pcall(vim.api.nvim_buf_delete, buf, {})
  end
  return vim.NIL
end

return M
