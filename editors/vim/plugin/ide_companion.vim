" ide-companion: Gemini CLI's IDE mode in Vim (8.2 and 9.x).
" Commands only; everything else loads on demand from autoload/.
if exists('g:loaded_ide_companion')
  finish
endif
let g:loaded_ide_companion = 1

if v:version < 802 || !has('job') || !has('channel') || !has('timers') || !has('lambda')
  " Said once, at startup, without an error: the editor stays usable.
  if !get(g:, 'ide_companion_quiet', 0)
    echohl WarningMsg
    echomsg 'ide-companion: needs Vim 8.2 or newer with +job, +channel, +timers and +lambda; not started.'
    echohl None
  endif
  finish
endif

command! -bar GeminiStart call ide_companion#host#start()
command! -bar GeminiStop if !ide_companion#host#stop() | call ide_companion#util#info('the companion is not running') | endif
command! -bar GeminiStatus call ide_companion#status()
command! -bar GeminiHealth echo join(ide_companion#health#report(), "\n")
command! -bar GeminiAccept call ide_companion#diff#decide(1)
command! -bar GeminiReject call ide_companion#diff#decide(0)
command! -bar -range GeminiSend call ide_companion#send_to_agent(<line1>, <line2>, <range>)
command! -nargs=* Gemini call ide_companion#terminal#open([<f-args>])
command! -nargs=* IdeAgent call ide_companion#terminal#open([<f-args>], 'agent')
command! -nargs=? -complete=file GeminiEnv call ide_companion#terminal#env(<q-args>)

augroup ide_companion_start
  autocmd!
  " After the vimrc and other plugins: g:ide_companion_* set anywhere count.
  autocmd VimEnter * if get(g:, 'ide_companion_auto_start', 1) | call ide_companion#host#start() | endif
  autocmd VimLeavePre * call ide_companion#host#leaving()
augroup END

" Sourced after startup (:packadd, a plugin manager loading late): start now.
if v:vim_did_enter && get(g:, 'ide_companion_auto_start', 1)
  call ide_companion#host#start()
endif
