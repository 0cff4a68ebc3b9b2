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
    return ide_companion#util#warn('this buffer is not a file')
  elseif index(ide_companion#host#state().sessionAgents, 'Claude Code') < 0
    return ide_companion#util#warn('no Claude Code is connected (only Claude Code takes what you send; run `claude --ide`)')
  endif
  call ide_companion#host#send(extend({'type': 'mention', 'path': resolve(path)}, a:range > 0 ? {'startLine': a:first, 'endLine': a:last} : {}))
endfunction

" " (Claude Code, Gemini CLI)" for the agents of the sessions connected, or ''.
function! ide_companion#agents_connected(state) abort
  return empty(a:state.sessionAgents) ? '' : ' (' . join(uniq(sort(copy(a:state.sessionAgents))), ', ') . ')'
endfunction

function! ide_companion#status() abort
  let state = ide_companion#host#state()
  if state.status ==# 'running'
    let lines = [printf('ide-companion: running on 127.0.0.1:%d, %d CLI session%s connected%s', state.port, state.sessions, state.sessions == 1 ? '' : 's', ide_companion#agents_connected(state)),
          \ '  agents: ' . join(state.agents, ', '), '  discovery file: ' . state.discoveryFile, '  workspace: ' . state.workspacePath]
  else
    let lines = [state.status ==# 'starting' ? 'ide-companion: starting' : 'ide-companion: not running (:GeminiStart starts it)' . (empty(state.lastError) ? '' : '; last error: ' . state.lastError)]
  endif
  echo join(lines + map(ide_companion#diff#list(), {_, d -> '  open diff: ' . fnamemodify(d.path, ':~:.') . ' (:GeminiAccept / :GeminiReject)'}), "\n")
endfunction
