" Diff tabs: the file as it is on disk (left, read-only scratch) beside Gemini's
" proposal (right, editable, 'buftype' acwrite). `:w` in the proposal accepts
" it as edited; closing it (:q!, :bd!, :tabclose!) or :GeminiReject rejects;
" a closeDiff request closes it with no outcome. Everything is keyed by the
" diffId, so several Gemini CLI sessions' diffs never collide.

" diffId -> {id, path, left, right, tick, prev_win, settled}
let s:diffs = {}
let s:counter = 0
let s:RELOAD_POLL_MS = 100
let s:RELOAD_POLL_FOR_MS = 30000
" path -> {text, at}: the newest text accepted for that file, until the
" file on disk holds it. The host (or the CLI behind it) may die before the
" accept reaches the CLI; the text is then shown again, not lost.
let s:accepted = {}
let s:ACCEPTED_FOR_S = 600

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

  let name = fnamemodify(path, ':~:.')
  let unsaved = 0
  for buf in ide_companion#util#buffers_of(path)
    let unsaved = unsaved || getbufvar(buf, '&modified')
  endfor
  if unsaved
    call ide_companion#util#warn(name . ' has unsaved changes: the diff is against the file on disk; your changes stay in the buffer')
  else
    call ide_companion#util#info(d.agent . ' proposes changes to ' . name . ': :w accepts, :q! or :GeminiReject rejects')
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
" stays for the user.
function! ide_companion#diff#close(params) abort
  let d = get(s:diffs, s:string_param(a:params, 'diffId'), {})
  if empty(d) || !s:settle(d)
    return v:null
  endif
  let reason = get(a:params, 'reason', '')
  let name = fnamemodify(d.path, ':t')
  if reason ==# 'sessionClosed'
    if s:keep(d)
      call ide_companion#util#warn('the ' . d.agent . ' session that proposed ' . name . ' went away; the proposal is kept in its buffer (:w FILE saves it)')
    else
      call ide_companion#util#info('the ' . d.agent . ' session that opened the diff for ' . name . ' went away')
    endif
    return v:null
  endif
  call s:wipe(d)
  if reason ==# 'closedByCli'
    call ide_companion#util#info(d.agent . ' closed the diff for ' . name)
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
  let accepted = text is v:null ? a:d.proposal : text
  call s:remember(a:d.path, accepted)
  call s:watch_for_write(a:d.path, accepted)
  " Not inside BufWriteCmd: wiping the buffer being written is refused there.
  call timer_start(0, {-> s:wipe(a:d)})
  return 1
endfunction

function! s:keep_unsent(d) abort
  let name = fnamemodify(a:d.path, ':t')
  if s:keep(a:d)
    call ide_companion#util#error('the companion is not running, so the accept reached no one; your proposal for ' . name . ' is kept in its buffer (:w FILE saves it)')
  else
    call ide_companion#util#error('the companion is not running; the proposal for ' . name . ' could not be accepted')
  endif
endfunction

function! s:remember(path, text) abort
  call s:prune_accepted()
  let s:accepted[a:path] = {'text': a:text, 'at': localtime()}
endfunction

function! s:prune_accepted() abort
  let now = localtime()
  call filter(s:accepted, {_, r -> now - r.at < s:ACCEPTED_FOR_S})
endfunction

" Whether the file at `path` holds exactly `text` (its size first: cheap).
function! s:holds(path, text) abort
  return getfsize(a:path) == len(a:text) && join(readfile(a:path, 'b'), "\n") ==# a:text
endfunction

" Drops the record of `path` if it is still the one for `text` (a newer accept stays).
function! s:forget(path, text) abort
  if has_key(s:accepted, a:path) && s:accepted[a:path].text ==# a:text
    call remove(s:accepted, a:path)
  endif
endfunction

function! s:reject(d) abort
  if !s:settle(a:d)
    return 0
  endif
  call ide_companion#host#send({'type': 'diffRejected', 'diffId': a:d.id})
  call timer_start(0, {-> s:wipe(a:d)})
  return 1
endfunction

" After an accept Gemini CLI writes the file itself, and nothing says when.
" Buffers showing it reload without the "changed on disk" prompt once the file
" holds the accepted text, unless they have unsaved changes: those are never
" dropped, the user is told instead. The file is compared, not its time: a
" write in the second Vim read it, with the same size, looks unchanged to
" :checktime.
function! s:watch_for_write(path, text) abort
  " Watched with no buffer showing the file too: the record of the accept
  " goes once the file holds it (a file reverted afterwards is not unwritten).
  let buffers = ide_companion#util#buffers_of(a:path)
  let watch = {'path': a:path, 'text': a:text, 'buffers': buffers, 'elapsed': 0}
  let watch.timer = timer_start(s:RELOAD_POLL_MS, {t -> s:poll_reload(watch)}, {'repeat': -1})
endfunction

function! s:poll_reload(watch) abort
  let a:watch.elapsed += s:RELOAD_POLL_MS
  let written = s:holds(a:watch.path, a:watch.text)
  if !written && a:watch.elapsed < s:RELOAD_POLL_FOR_MS
    return
  endif
  if written
    call s:forget(a:watch.path, a:watch.text)
  endif
  call timer_stop(a:watch.timer)
  for buf in a:watch.buffers
    if !bufloaded(buf)
      continue
    elseif getbufvar(buf, '&modified')
      call ide_companion#util#warn(fnamemodify(a:watch.path, ':~:.') . ' has unsaved changes, so it was not reloaded after Gemini CLI wrote it (:e! would drop them)')
    elseif written
      call s:reload(buf)
    else
      " Written differently, or not at all: Vim's own check decides.
      call s:checktime(buf)
    endif
  endfor
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

" A buffer-local 'autoread' makes :checktime reload without a prompt.
function! s:checktime(buf) abort
  let had = getbufvar(a:buf, '&autoread')
  call setbufvar(a:buf, '&autoread', 1)
  try
    silent! execute 'checktime' a:buf
  finally
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
  call s:prune_accepted()
  let records = s:accepted
  let s:accepted = {}
  for [path, record] in items(records)
    if !s:holds(path, record.text) && s:show_kept(path, record.text)
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

" The accepted texts remembered (path -> time, size), for tests.
function! ide_companion#diff#accepted() abort
  return map(copy(s:accepted), {_, r -> {'at': r.at, 'bytes': len(r.text)}})
endfunction

" The host went away: its diffs can no longer be answered.
function! ide_companion#diff#close_all() abort
  for d in values(s:diffs)
    if s:settle(d)
      call s:wipe(d)
    endif
  endfor
endfunction
