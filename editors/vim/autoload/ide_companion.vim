" Entry points behind the commands in plugin/ide_companion.vim.

function! ide_companion#start() abort
  call ide_companion#host#start()
endfunction

function! ide_companion#stop() abort
  if !ide_companion#host#stop()
    call ide_companion#util#info('the companion is not running')
  endif
endfunction

function! ide_companion#status() abort
  let state = ide_companion#host#state()
  let lines = []
  if state.status ==# 'running'
    call add(lines, printf('ide-companion: running on 127.0.0.1:%d, %d Gemini CLI session%s connected',
          \ state.port, state.sessions, state.sessions == 1 ? '' : 's'))
    call add(lines, '  discovery file: ' . state.discoveryFile)
    call add(lines, '  workspace: ' . state.workspacePath)
  elseif state.status ==# 'starting'
    call add(lines, 'ide-companion: starting')
  else
    call add(lines, 'ide-companion: not running (:GeminiStart starts it)' . (empty(state.lastError) ? '' : '; last error: ' . state.lastError))
  endif
  for d in ide_companion#diff#list()
    call add(lines, '  open diff: ' . fnamemodify(d.path, ':~:.') . ' (:GeminiAccept / :GeminiReject)')
  endfor
  echo join(lines, "\n")
endfunction
