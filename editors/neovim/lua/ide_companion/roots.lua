-- Workspace roots: the global cwd, every tab-local and window-local cwd
-- (:tcd, :lcd), and the configured extra roots; real paths, no duplicates.
local uv = vim.uv or vim.loop
local M = {}

function M.collect(extra)
  local seen, roots = {}, {}
  local function add(dir)
    if type(dir) ~= 'string' or dir == '' then
      return
    end
    local real = uv.fs_realpath(dir) or dir
    if not seen[real] then
      seen[real] = true
      table.insert(roots, real)
    end
  end
  add(vim.fn.getcwd(-1, -1))
  for _, tab in ipairs(vim.api.nvim_list_tabpages()) do
    local tabnr = vim.api.nvim_tabpage_get_number(tab)
    add(vim.fn.getcwd(-1, tabnr))
    for _, win in ipairs(vim.api.nvim_tabpage_list_wins(tab)) do
      local winnr = vim.api.nvim_win_get_number(win)
      if vim.fn.haslocaldir(winnr, tabnr) == 1 then
        add(vim.fn.getcwd(winnr, tabnr))
      end
    end
  end
  for _, dir in ipairs(extra or {}) do
    add(dir)
  end
  return roots
end

return M
