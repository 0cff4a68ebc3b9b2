" Entry points behind the commands in plugin/ide_companion.vim.

function! ide_companion#start() abort
  call ide_companion#host#start()
endfunction

function! ide_companion#stop() abort
  if !ide_companion#host#stop()
    call ide_companion#util#info('the companion is not running')
  endif
endfunction

" "Send to agent": the current file, or lines a:first..a:last of it, to the
" connected Claude Code (its at_mentioned; Gemini CLI and Qwen Code have no
" such channel).
function! ide_companion#send_to_agent(first, last, range) abort
  let path = expand('%:p')
  if path ==# '' || &buftype !=# ''
    call ide_companion#util#warn('this buffer is not a file')
    return
  endif
  if index(ide_companion#host#state().sessionAgents, 'Claude Code') < 0
    call ide_companion#util#warn('no Claude Code is connected (only Claude Code takes what you send; run `claude --ide`)')
    return
  endif
  let event = {'type': 'mention', 'path': resolve(path)}
  if a:range > 0
    let event.startLine = a:first
    let event.endLine = a:last
  endif
  call ide_companion#host#send(event)
endfunction

function! ide_companion#status() abort
  let state = ide_companion#host#state()
  let lines = []
  if state.status ==# 'running'
    call add(lines, printf('ide-companion: running on 127.0.0.1:%d, %d CLI session%s connected%s',
          \ state.port, state.sessions, state.sessions == 1 ? '' : 's',
          \ empty(state.sessionAgents) ? '' : ' (' . join(uniq(sort(copy(state.sessionAgents))), ', ') . ')'))
    call add(lines, '  agents: ' . join(state.agents, ', '))
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
