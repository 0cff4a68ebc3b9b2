-- The optional editor actions (docs/editor-protocol.md) Neovim answers: the
-- host calls these through nvim_exec_lua when an agent uses the matching MCP
-- tool. Each returns plain data; positions are 1-based, characters not bytes.
local context = require('ide_companion.context')

local M = {}

--- What this end declares in its hello: the companion offers a tool for each.
-- `reload` is no capability (no tool): the diff half's action, answered by diff.lua.
M.CAPABILITIES = { 'openFile', 'getOpenEditors', 'getSelection', 'getDiagnostics', 'checkDocumentDirty', 'saveDocument', 'reload' }

--- The listed buffer showing `path`, or nil (bufnr() matches patterns, so compare names).
local function buffer_of(path)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if context.open_file_of(buf) == path then
      return buf
    end
  end
  return nil
end

--- 1-based character column of byte offset `col` (0-based) in line `lnum` (0-based) of `buf`.
local function char_col(buf, lnum, col)
  if not vim.api.nvim_buf_is_loaded(buf) then
    return col + 1
  end
  local line = vim.api.nvim_buf_get_lines(buf, lnum, lnum + 1, false)[1]
  if not line then
    return col + 1
  end
  return vim.fn.strchars(line:sub(1, col)) + 1
end

--- A window to show a file in: the current one unless it is a terminal or a diff proposal, else another in this tab, else a new split.
local function target_window()
  local function usable(win)
    local buf = vim.api.nvim_win_get_buf(win)
    return context.buf_option(buf, 'buftype') == '' and not vim.api.nvim_win_get_option(win, 'diff')
  end
  local current = vim.api.nvim_get_current_win()
  if usable(current) then
    return current
  end
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if usable(win) then
      return win
    end
  end
  vim.cmd('aboveleft new')
  return vim.api.nvim_get_current_win()
end

--- Selects (Visual mode) from the cursor at (`lnum`, `byte`) up to, not including, character `end_column` of `end_line`
--- (1-based; no `end_column`: the whole of `end_line`), as openFile's `endLine`/`endColumn` ask.
local function select_to(buf, lnum, byte, end_line, end_column)
  local count = vim.api.nvim_buf_line_count(buf)
  local elnum = math.min(math.max(end_line, lnum), count)
  local text = vim.api.nvim_buf_get_lines(buf, elnum - 1, elnum, false)[1] or ''
  local last = vim.fn.strchars(text)
  if type(end_column) == 'number' then
    last = math.min(end_column - 1, last)
  end
  if last < 1 and elnum > lnum then
    -- Ends before the first character of a line: the selection ends with the line before.
    elnum = elnum - 1
    text = vim.api.nvim_buf_get_lines(buf, elnum - 1, elnum, false)[1] or ''
    last = vim.fn.strchars(text)
  end
  local end_byte = last <= 1 and 0 or #vim.fn.strcharpart(text, 0, last - 1)
  if elnum == lnum then
    end_byte = math.max(end_byte, byte)
  end
  vim.api.nvim_buf_set_mark(buf, '<', lnum, byte, {})
  vim.api.nvim_buf_set_mark(buf, '>', elnum, end_byte, {})
  vim.cmd('normal! gv')
  if vim.api.nvim_get_mode().mode ~= 'v' then
    -- gv reuses the last selection's kind: make it charwise.
    vim.cmd('normal! v')
  end
end

--- openFile (defaults in docs/editor-protocol.md): no line keeps the cursor where Neovim had it (the top of a
--- file not open yet); no column is the line's first; a line past the end is the last, a column past the line its end.
function M.open_file(params)
  local win = target_window()
  vim.api.nvim_set_current_win(win)
  vim.cmd('edit ' .. vim.fn.fnameescape(params.path))
  if type(params.line) ~= 'number' then
    return vim.NIL
  end
  local buf = vim.api.nvim_get_current_buf()
  local count = vim.api.nvim_buf_line_count(buf)
  local lnum = math.min(math.max(params.line, 1), count)
  local text = vim.api.nvim_buf_get_lines(buf, lnum - 1, lnum, false)[1] or ''
  local chars = vim.fn.strchars(text)
  local column = type(params.column) == 'number' and params.column or 1
  local char = math.min(math.max(column - 1, 0), chars)
  -- Character column -> byte column.
  local byte = char == 0 and 0 or #vim.fn.strcharpart(text, 0, char)
  vim.api.nvim_win_set_cursor(win, { lnum, byte })
  if type(params.endLine) == 'number' then
    select_to(buf, lnum, byte, params.endLine, params.endColumn)
  end
  vim.cmd('normal! zz')
  return vim.NIL
end

function M.open_editors()
  local current = vim.api.nvim_get_current_buf()
  local editors = {}
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

--- The selection: the live one in Visual mode, else the last one ('< and '>) of the current or alternate file buffer.
function M.selection()
  local buf = vim.api.nvim_get_current_buf()
  local mode = vim.api.nvim_get_mode().mode
  local kind, s, e
  if context.open_file_of(buf) and (mode == 'v' or mode == 'V' or mode == '\22') then
    kind = mode
    local v, dot = vim.fn.getpos('v'), vim.fn.getpos('.')
    s, e = { v[2], v[3] - 1 }, { dot[2], dot[3] - 1 }
  else
    if not context.open_file_of(buf) then
      buf = vim.fn.bufnr('#')
    end
    if buf < 1 or not context.open_file_of(buf) then
      return { selection = vim.NIL }
    end
    kind = vim.fn.visualmode()
    s, e = vim.api.nvim_buf_get_mark(buf, '<'), vim.api.nvim_buf_get_mark(buf, '>')
    if kind == '' or s[1] == 0 then
      return { selection = vim.NIL }
    end
  end
  if s[1] > e[1] or (s[1] == e[1] and s[2] > e[2]) then
    s, e = e, s
  end
  local lines
  if kind == 'V' then
    lines = vim.api.nvim_buf_get_lines(buf, s[1] - 1, e[1], false)
    local last = lines[#lines] or ''
    s = { s[1], 0 }
    e = { e[1], math.max(#last - 1, 0) }
  else
    -- Charwise (and blockwise, approximated by its corners): up to the end of the last character.
    local last_line = vim.api.nvim_buf_get_lines(buf, e[1] - 1, e[1], false)[1] or ''
    local end_byte = math.min(e[2] + #vim.fn.strcharpart(last_line:sub(e[2] + 1), 0, 1), #last_line)
    lines = vim.api.nvim_buf_get_text(buf, s[1] - 1, s[2], e[1] - 1, end_byte, {})
  end
  return {
    selection = {
      path = context.open_file_of(buf),
      text = table.concat(lines, '\n'),
      start = { line = s[1], character = char_col(buf, s[1] - 1, s[2]) },
      ['end'] = { line = e[1], character = char_col(buf, e[1] - 1, e[2]) },
    },
  }
end

local SEVERITY = { 'error', 'warning', 'information', 'hint' }

--- vim.diagnostic for one file (params.path) or every buffer.
function M.diagnostics(params)
  local bufnr = nil
  if params and params.path then
    bufnr = buffer_of(params.path)
    if not bufnr then
      return { diagnostics = {} }
    end
  end
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    local path = context.file_of(d.bufnr)
    if path then
      local end_lnum = d.end_lnum or d.lnum
      local end_col = d.end_col or d.col
      table.insert(out, {
        path = path,
        range = {
          start = { line = d.lnum + 1, character = char_col(d.bufnr, d.lnum, d.col) },
          ['end'] = { line = end_lnum + 1, character = char_col(d.bufnr, end_lnum, end_col) },
        },
        severity = SEVERITY[d.severity] or 'error',
        message = d.message,
        source = d.source,
        code = d.code,
      })
    end
  end
  return { diagnostics = out }
end

function M.dirty(params)
  local buf = buffer_of(params.path)
  if not buf then
    return { isOpen = false, isDirty = false }
  end
  return { isOpen = true, isDirty = context.buf_option(buf, 'modified') }
end

function M.save(params)
  local buf = buffer_of(params.path)
  if not buf then
    return { saved = false, message = params.path .. ' is not open in Neovim' }
  end
  if not context.buf_option(buf, 'modified') then
    return { saved = true, message = 'no unsaved changes' }
  end
  local ok, err = pcall(vim.api.nvim_buf_call, buf, function()
    vim.cmd('silent write')
  end)
  if not ok then
    return { saved = false, message = tostring(err) }
  end
  return { saved = true }
end

--- closeFile: the companion takes back an openFile whose path was swapped while Neovim opened it (it re-checks
--- after the open): the buffer goes, unless it has unsaved changes.
function M.close_file(params)
  local buf = buffer_of(params.path)
  if buf and not context.buf_option(buf, 'modified') then
    pcall(vim.api.nvim_buf_delete, buf, {})
  end
  return vim.NIL
end

return M
