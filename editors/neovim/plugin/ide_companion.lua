-- ide-companion: Gemini CLI's IDE mode in Neovim. See :help ide-companion.
if vim.g.loaded_ide_companion then
  return
end
vim.g.loaded_ide_companion = 1

if vim.fn.has('nvim-0.7') ~= 1 then
  vim.api.nvim_echo({ { 'ide-companion needs Neovim 0.7 or newer', 'WarningMsg' } }, true, {})
  return
end

require('ide_companion.commands').define()

-- Without a setup() call in the user's config, start with the defaults once Neovim has started.
require('ide_companion').once_entered(function()
  require('ide_companion')._auto_setup()
end)
