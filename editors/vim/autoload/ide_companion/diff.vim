" Diff tabs: the file as it is on disk (left, read-only scratch) beside Gemini's
" proposal (right, editable, 'buftype' acwrite). `:w` in the proposal accepts
" it as edited; closing it (:q!, :bd!, :tabclose!) or :GeminiReject rejects;
" a closeDiff request closes it with no outcome. Everything is keyed by the
" diffId, so several Gemini CLI sessions' diffs never collide.

" diffId -> {id, path, left, right, tick, prev_win, settled}
let s:diffs = {}
let s:counter = 0
" path -> text: the newest text accepted for that file, kept only for a host
" that dies with the accept in its pipe or before the CLI wrote it (the
" companion's own memory of it dies with the host). Dropped when the host
" says the file holds it (reload) or a new proposal for the file opens; shown
" again by keep_all() unless the file holds it (docs/reliability.md).
let s:accepted = {}
" The words for when the host is gone (it cannot send them then), as the host
" gave them in `ready` (diffWords.ts hostGoneWords); these few stand in for a
" host too old to send them.
let s:words = {'acceptUnsent': 'the companion is not running: the accept reached no one; {file} is kept', 'keptAtDeath': '; kept: {files}'}

" `template` with `value` put for `key`, literally (never a format string).
function! s:put(template, key, value) abort
  return join(split(a:template, a:key, 1), a:value)
endfunction

" ready: the host's words, kept for when it is gone.
function! ide_companion#diff#set_words(words) abort
  if type(a:words) == v:t_dict && type(get(a:words, 'acceptUnsent')) == v:t_string && type(get(a:words, 'keptAtDeath')) == v:t_string
    let s:words = {'acceptUnsent': a:words.acceptUnsent, 'keptAtDeath': a:words.keptAtDeath}
  endif
endfunction

" What the "host stopped" line adds for the files kept ('' for none).
function! ide_companion#diff#kept_words(kept) abort
  return empty(a:kept) ? '' : s:put(s:words.keptAtDeath, '{files}', join(a:kept, ', '))
endfunction

" The file's name alone after the diff's number and side: a tab's label is
" the buffer name with every folder cut to one letter, and the file's whole
" path there read `i//1/p/t/i/w/a.txt` (issue 30).
function! s:scratch_name(n, side, path) abort
  return printf('ide-companion://%d/%s/%s', a:n, a:side, fnamemodify(a:path, ':t'))
endfunction

function! s:detect_filetype(path) abort
  silent! execute 'doautocmd filetypedetect BufRead' fnameescape(a:path)
endfunction

" showDiff: opens the tab. Answered (null) as soon as the tab stands.
function! ide_companion#diff#show(params) abort
  let id = s:string_param(a:params, 'diffId')
  let path = s:string_param(a:params, 'filePath')
  let proposal = s:string_param(a:params, 'newContent')
  let original = get(a:params, 'originalContent', v:null)
  if type(original) != v:t_string && original isnot v:null
    throw 'originalContent must be a string or null'
  endif
  if has_key(s:diffs, id)
    return v:null
  endif
  " A new proposal for the file supersedes an accept of it (the companion
  " shows a kept accept again itself): never two copies of one text.
  silent! call remove(s:accepted, path)
  let s:counter += 1
  let n = s:counter
  let agent = get(a:params, 'agent', 'Gemini CLI')
  let d = {'id': id, 'path': path, 'agent': type(agent) == v:t_string ? agent : 'Gemini CLI', 'settled': 0, 'prev_win': win_getid(), 'left': -1, 'right': -1, 'proposal': proposal}
  " From Terminal-Job mode (the CLI's own terminal) or Insert mode: a new tab
  " needs Normal mode, and typing into the proposal by accident would be worse.
  if mode() ==# 'i' || mode() ==# 'R'
    stopinsert
  endif

  noautocmd tabnew
  let d.left = bufnr('')
  setlocal buftype=nofile bufhidden=wipe noswapfile nobuflisted
  silent! execute 'file' fnameescape(s:scratch_name(n, original is v:null ? 'new-file' : 'disk', path))
  call ide_companion#text#fill(original is v:null ? '' : original)
  setlocal nomodified nomodifiable
  call s:detect_filetype(path)
  diffthis

  noautocmd rightbelow vnew
  let d.right = bufnr('')
  setlocal buftype=acwrite bufhidden=wipe noswapfile nobuflisted
  silent! execute 'file' fnameescape(s:scratch_name(n, 'proposed', path))
  call ide_companion#text#fill(proposal)
  setlocal nomodified
  call s:detect_filetype(path)
  diffthis
  let b:ide_companion_diff = id
  let d.tick = b:changedtick

  execute 'augroup ide_companion_diff_' . n
    autocmd!
    execute 'autocmd BufWriteCmd <buffer=' . d.right . '> call ide_companion#diff#on_write(' . d.right . ')'
    " BufUnload, not BufWipeout alone: with 'bufhidden' wipe, :q unloads and
    " wipes, :bd! only unloads; both mean the user closed the proposal.
    execute 'autocmd BufUnload,BufWipeout <buffer=' . d.right . '> call ide_companion#diff#on_closed(' . d.right . ')'
  augroup END
  let d.group = 'ide_companion_diff_' . n
  let s:diffs[id] = d

  " The companion's words (diffWords.ts); the buffer's state picks which.
  let words = get(a:params, 'words', {})
  if type(words) == v:t_dict && type(get(words, 'unsaved')) == v:t_string && type(get(words, 'proposed')) == v:t_string
    let unsaved = 0
    for buf in ide_companion#util#buffers_of(path)
      let unsaved = unsaved || getbufvar(buf, '&modified')
    endfor
    call call(unsaved ? 'ide_companion#util#warn' : 'ide_companion#util#info', [unsaved ? words.unsaved : words.proposed])
  endif
  return v:null
endfunction

function! s:string_param(params, name) abort
  let value = get(a:params, a:name, v:null)
  if type(value) != v:t_string
    throw a:name . ' must be a string'
  endif
  return value
endfunction

" diffText: the proposal as edited so far, or null while unedited.
function! ide_companion#diff#text(params) abort
  let d = get(s:diffs, s:string_param(a:params, 'diffId'), {})
  if empty(d) || !bufexists(d.right)
    throw 'no open diff with that id'
  endif
  return {'text': s:edited_text(d)}
endfunction

" The proposal's text, or v:null when it is as Gemini sent it (exact bytes then, NULs included).
function! s:edited_text(d) abort
  if getbufvar(a:d.right, 'changedtick') == a:d.tick
    return v:null
  endif
  return ide_companion#text#of_buffer(a:d.right, bufwinid(a:d.right))
endfunction

function! s:settle(d) abort
  if a:d.settled
    return 0
  endif
  let a:d.settled = 1
  silent! call remove(s:diffs, a:d.id)
  return 1
endfunction

function! s:wipe(d) abort
  silent! execute 'autocmd! ' . a:d.group
  silent! execute 'augroup! ' . a:d.group
  let in_diff_tab = index([a:d.left, a:d.right], bufnr('')) >= 0
  for buf in [a:d.right, a:d.left]
    if bufexists(buf)
      silent! execute 'bwipeout!' buf
    endif
  endfor
  if in_diff_tab
    call s:return_to_user(a:d)
  endif
endfunction

" Back to the window the user was in when the diff opened. Run from a timer
" or a channel callback, while Vim's main loop waits for a Normal-mode key: a
" terminal window entered from there got the user's next keys in Normal mode
" (CTRL-W N then did nothing, `/` started a search) until one more key went
" by. An <Ignore> ends that wait, and the main loop enters the terminal's own
" loop as when the user enters the window.
function! s:return_to_user(d) abort
  if win_gotoid(a:d.prev_win) && &buftype ==# 'terminal'
    call feedkeys("\<Ignore>", 'n')
  endif
endfunction

" Keeps a settled diff's proposal in its tab as a plain scratch buffer (its
" edits in it, :w FILE saves it); the on-disk side goes. 0 when the proposal
" buffer is gone.
function! s:keep(d) abort
  silent! execute 'autocmd! ' . a:d.group
  silent! execute 'augroup! ' . a:d.group
  if bufexists(a:d.left)
    silent! execute 'bwipeout!' a:d.left
  endif
  if !bufexists(a:d.right)
    return 0
  endif
  call setbufvar(a:d.right, '&buftype', 'nofile')
  call setbufvar(a:d.right, '&bufhidden', 'hide')
  call setbufvar(a:d.right, 'ide_companion_diff', v:null)
  return 1
endfunction

" closeDiff: no outcome is sent. When its CLI went away (exited or died),
" nobody can take an answer, but the proposal (and the user's edits in it)
" stays for the user. `message`: the companion's words for it, if any.
function! ide_companion#diff#close(params) abort
  let d = get(s:diffs, s:string_param(a:params, 'diffId'), {})
  if empty(d) || !s:settle(d)
    return v:null
  endif
  let message = get(a:params, 'message', '')
  let message = type(message) == v:t_string ? message : ''
  if get(a:params, 'reason', '') ==# 'sessionClosed'
    if s:keep(d) && message !=# ''
      call ide_companion#util#warn(message)
    endif
    return v:null
  endif
  call s:wipe(d)
  if message !=# ''
    call ide_companion#util#info(message)
  endif
  return v:null
endfunction

function! s:find_by_buf(buf) abort
  for d in values(s:diffs)
    if d.right == a:buf || d.left == a:buf
      return d
    endif
  endfor
  return {}
endfunction

function! ide_companion#diff#on_write(buf) abort
  let d = s:find_by_buf(a:buf)
  if !empty(d)
    call s:accept(d)
  endif
endfunction

function! ide_companion#diff#on_closed(buf) abort
  let d = s:find_by_buf(a:buf)
  if !empty(d) && !d.settled
    " Not while Vim is unloading the buffer: settle right after.
    call timer_start(0, {-> s:reject(d)})
  endif
endfunction

function! s:accept(d) abort
  if !bufexists(a:d.right) || !s:settle(a:d)
    return 0
  endif
  let msg = {'type': 'diffAccepted', 'diffId': a:d.id}
  let text = s:edited_text(a:d)
  if text isnot v:null
    let msg.content = text
  endif
  call setbufvar(a:d.right, '&modified', 0)
  if !ide_companion#host#send(msg)
    " Nobody will write it: the proposal stays the user's. Not inside
    " BufWriteCmd: the buffer being written keeps its 'buftype' there.
    call timer_start(0, {-> s:keep_unsent(a:d)})
    return 1
  endif
  let s:accepted[a:d.path] = text is v:null ? a:d.proposal : text
  " Not inside BufWriteCmd: wiping the buffer being written is refused there.
  call timer_start(0, {-> s:wipe(a:d)})
  return 1
endfunction

function! s:keep_unsent(d) abort
  let name = fnamemodify(a:d.path, ':t')
  if s:keep(a:d)
    call ide_companion#util#error(s:put(s:words.acceptUnsent, '{file}', name))
  else
    call ide_companion#util#error('the companion is not running; the proposal for ' . name . ' could not be accepted')
  endif
endfunction

" Whether the file at `path` holds exactly `text` (its size first: cheap).
function! s:holds(path, text) abort
  return getfsize(a:path) == len(a:text) && join(readfile(a:path, 'b'), "\n") ==# a:text
endfunction

function! s:reject(d) abort
  if !s:settle(a:d)
    return 0
  endif
  call ide_companion#host#send({'type': 'diffRejected', 'diffId': a:d.id})
  call timer_start(0, {-> s:wipe(a:d)})
  return 1
endfunction

" reload (docs/editor-protocol.md): the agent wrote `path`; the companion
" watched for it and sends the words. Unmodified buffers reread the file
" without the "changed on disk" prompt (:edit!, not :checktime: a write of the
" same size within the second looks unchanged to it); a modified one is never
" dropped, the user is told instead.
function! ide_companion#diff#reload(params) abort
  let path = s:string_param(a:params, 'path')
  if get(a:params, 'holdsAccepted', v:false) is v:true
    silent! call remove(s:accepted, path)
  endif
  for buf in ide_companion#util#buffers_of(path)
    if getbufvar(buf, '&modified')
      call ide_companion#util#warn(s:string_param(a:params, 'unsavedWarning'))
    else
      call s:reload(buf)
    endif
  endfor
  return v:null
endfunction

" Rereads an unmodified buffer from disk, in a window showing it or, when none
" does, in a moment's split. A buffer-local 'autoread' meanwhile: entering a
" buffer whose file changed would otherwise stop at the "changed" prompt.
function! s:reload(buf) abort
  let had = getbufvar(a:buf, '&autoread')
  call setbufvar(a:buf, '&autoread', 1)
  let wins = win_findbuf(a:buf)
  let back = win_getid()
  try
    if !empty(wins)
      call win_execute(wins[0], 'silent! edit!')
    else
      execute 'silent keepalt keepjumps noswapfile sbuffer' a:buf
      silent! edit!
    endif
  finally
    if empty(wins) && bufnr('') == a:buf && win_getid() != back
      close
    endif
    call win_gotoid(back)
    call setbufvar(a:buf, '&autoread', had)
  endtry
endfunction

" The diff a command applies to: the one in the current tab, else the only one open.
function! s:current() abort
  let d = s:find_by_buf(bufnr(''))
  if !empty(d)
    return d
  endif
  for buf in tabpagebuflist()
    let d = s:find_by_buf(buf)
    if !empty(d)
      return d
    endif
  endfor
  return len(s:diffs) == 1 ? values(s:diffs)[0] : {}
endfunction

function! ide_companion#diff#accept_current() abort
  let d = s:current()
  if empty(d)
    call ide_companion#util#warn(empty(s:diffs) ? 'no diff is open' : 'several diffs are open: run this in the one to accept')
  else
    call s:accept(d)
  endif
endfunction

function! ide_companion#diff#reject_current() abort
  let d = s:current()
  if empty(d)
    call ide_companion#util#warn(empty(s:diffs) ? 'no diff is open' : 'several diffs are open: run this in the one to reject')
  else
    call s:reject(d)
  endif
endfunction

function! ide_companion#diff#list() abort
  return map(values(s:diffs), {_, d -> {'id': d.id, 'path': d.path, 'proposal': d.right, 'original': d.left}})
endfunction

" The host died: no outcome can reach the CLI any more, but the user's work
" must not go. Each proposal stays as s:keep() leaves it, and each accepted
" text the file does not hold yet (the accept may have died with the host)
" comes back the same way. Returns the files' names, for the one line that
" says so.
function! ide_companion#diff#keep_all() abort
  let kept = []
  for d in values(s:diffs)
    if s:settle(d) && s:keep(d)
      call add(kept, fnamemodify(d.path, ':t'))
    endif
  endfor
  let records = s:accepted
  let s:accepted = {}
  for [path, text] in items(records)
    if !s:holds(path, text) && s:show_kept(path, text)
      call add(kept, fnamemodify(path, ':t'))
    endif
  endfor
  return kept
endfunction

" A kept plain buffer holding exactly `text`, in a tab of its own, as
" s:keep() leaves a proposal; the cursor stays where the user is.
function! s:show_kept(path, text) abort
  let back = win_getid()
  try
    noautocmd tabnew
    setlocal buftype=nofile bufhidden=hide noswapfile nobuflisted
    let s:counter += 1
    silent! execute 'file' fnameescape(s:scratch_name(s:counter, 'proposed', a:path))
    call ide_companion#text#fill(a:text)
    setlocal nomodified
    call s:detect_filetype(a:path)
  catch
    call ide_companion#util#error('the text accepted for ' . fnamemodify(a:path, ':t') . ' could not be shown again: ' . v:exception)
    return 0
  finally
    noautocmd call win_gotoid(back)
  endtry
  return 1
endfunction

" The accepted texts remembered (path -> size), for tests.
function! ide_companion#diff#accepted() abort
  return map(copy(s:accepted), {_, text -> {'bytes': len(text)}})
endfunction

" The host went away: its diffs can no longer be answered.
function! ide_companion#diff#close_all() abort
  for d in values(s:diffs)
    if s:settle(d)
      call s:wipe(d)
    endif
  endfor
endfunction
