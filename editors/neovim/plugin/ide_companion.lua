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
if vim.v.vim_did_enter == 1 then
  require('ide_companion')._auto_setup()
else
  vim.api.nvim_create_autocmd('VimEnter', {
    once = true,
    callback = function()
      require('ide_companion')._auto_setup()
    end,
  })
end
