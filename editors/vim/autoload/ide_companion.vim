" Entry points behind the commands in plugin/ide_companion.vim.

" "Send to agent": the current file, or lines a:first..a:last of it, to every
" connected agent that takes a mention. The companion decides who hears it and
" says so when no one does (its error comes back as the host's message).
function! ide_companion#send_to_agent(first, last, range) abort
  let path = expand('%:p')
  if path ==# '' || &buftype !=# ''
    return ide_companion#util#warn('this buffer is not a file')
  endif
  call ide_companion#host#send(extend({'type': 'mention', 'path': resolve(path)}, a:range > 0 ? {'startLine': a:first, 'endLine': a:last} : {}))
endfunction

" The running host's findings (its health lines as it last sent them) and the open diffs.
function! ide_companion#status() abort
  let state = ide_companion#host#state()
  let lines = state.status ==# 'running' ? ['ide-companion: running'] + map(copy(state.health), {_, l -> '  ' . l})
        \ : [state.status ==# 'starting' ? 'ide-companion: starting' : 'ide-companion: not running (:GeminiStart starts it)' . (empty(state.lastError) ? '' : '; last error: ' . state.lastError)]
  echo join(lines + map(ide_companion#diff#list(), {_, d -> '  open diff: ' . fnamemodify(d.path, ':~:.') . ' (:GeminiAccept / :GeminiReject)'}), "\n")
endfunction
