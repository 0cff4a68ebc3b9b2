" Diff tabs: the file on disk (left, read-only scratch) beside the proposal
" (right, 'buftype' acwrite). `:w` in the proposal accepts it as edited;
" closing it or :GeminiReject rejects; closeDiff closes it with no outcome.
" Keyed by diffId, so several sessions' diffs never collide.

" diffId -> {id, path, left, right, tick, prev_win, settled, group, proposal}
let s:diffs = {}
" Accepted, not yet taken: the tab closed, the proposal hidden until the host's
" closeDiff `accepted` (issue 37); kept as an open one if the host dies first.
let s:held = {}
" Ids of accepts kept at the host's death: the next host may show the same one
" (its copy) under that id; it is kept and said once.
let s:kept_at_death = {}
let s:counter = 0
" The host's words for when it is gone (`ready`: diffWords.ts hostGoneWords).
let s:words = {'acceptUnsent': '', 'keptAtDeath': '', 'restarted': '', 'notRestarted': ''}

" The words `name` with each {key} of `values` put in, literally (never a format string).
function! ide_companion#diff#words(name, values) abort
  let text = s:words[a:name]
  for [key, value] in items(a:values)
    let text = join(split(text, '{' . key . '}', 1), value)
  endfor
  return text
endfunction

function! ide_companion#diff#set_words(words) abort
  if type(a:words) == v:t_dict
    call extend(s:words, filter(copy(a:words), {k, v -> has_key(s:words, k) && type(v) == v:t_string}))
  endif
endfunction

" A fresh scratch buffer in the current window holding `text`, named after
" the file alone (a tab label cuts every folder of a whole path to a letter).
function! s:scratch(side, path, text, buftype) abort
  let s:counter += 1
  setlocal noswapfile nobuflisted bufhidden=wipe
  let &l:buftype = a:buftype
  silent! execute 'file' fnameescape(printf('ide-companion://%d/%s/%s', s:counter, a:side, fnamemodify(a:path, ':t')))
  call ide_companion#text#fill(a:text)
  setlocal nomodified
  silent! execute 'doautocmd filetypedetect BufRead' fnameescape(a:path)
  return bufnr('')
endfunction

" showDiff: opens the tab, answered as soon as it stands. `kept` (an accept
" shown again, to be kept): the user's window and mode stay theirs.
function! ide_companion#diff#show(params) abort
  let [id, path, original] = [a:params.diffId, a:params.filePath, get(a:params, 'originalContent', v:null)]
  if has_key(s:diffs, id)
    return v:null
  endif
  let background = get(a:params, 'kept', v:false) is v:true
  if background && has_key(s:kept_at_death, id)
    return v:null
  endif
  let d = {'id': id, 'path': path, 'settled': 0, 'prev_win': win_getid(), 'proposal': a:params.newContent}
  " Typing into the proposal by accident (Insert mode, a terminal) would be worse.
  if !background && (mode() ==# 'i' || mode() ==# 'R')
    stopinsert
  endif
  noautocmd tabnew
  let d.left = s:scratch(original is v:null ? 'new-file' : 'disk', path, original is v:null ? '' : original, 'nofile')
  setlocal nomodifiable
  diffthis
  noautocmd rightbelow vnew
  let d.right = s:scratch('proposed', path, d.proposal, 'acwrite')
  diffthis
  let b:ide_companion_diff = id
  let d.tick = b:changedtick
  let d.group = 'ide_companion_diff_' . d.right
  execute 'augroup' d.group
    autocmd!
    execute 'autocmd BufWriteCmd <buffer=' . d.right . '> call ide_companion#diff#on_write(' . d.right . ')'
    " :q unloads and wipes, :bd! only unloads: both close the proposal.
    execute 'autocmd BufUnload,BufWipeout <buffer=' . d.right . '> call ide_companion#diff#on_closed(' . d.right . ')'
  augroup END
  let s:diffs[id] = d
  if background
    noautocmd call s:return_to_user(d)
  endif
  let words = get(a:params, 'words', {})
  if type(words) == v:t_dict && has_key(words, 'proposed')
    let unsaved = !empty(filter(ide_companion#util#buffers_of(path), {_, b -> getbufvar(b, '&modified')}))
    call call(unsaved ? 'ide_companion#util#warn' : 'ide_companion#util#info', [unsaved ? words.unsaved : words.proposed])
  endif
  return v:null
endfunction

" diffText: the proposal as edited so far, or null while unedited.
function! ide_companion#diff#text(params) abort
  let d = get(s:diffs, a:params.diffId, {})
  if empty(d) || !bufexists(d.right)
    throw 'no open diff with that id'
  endif
  return {'text': s:edited_text(d)}
endfunction

" v:null while the proposal is as sent (its exact bytes then, NULs included).
function! s:edited_text(d) abort
  return getbufvar(a:d.right, 'changedtick') == a:d.tick ? v:null : ide_companion#text#of_buffer(a:d.right, bufwinid(a:d.right))
endfunction

function! s:settle(d) abort
  if a:d.settled
    return 0
  endif
  let a:d.settled = 1
  silent! call remove(s:diffs, a:d.id)
  silent! execute 'autocmd!' a:d.group
  silent! execute 'augroup!' a:d.group
  return 1
endfunction

" `hide`: the proposal is hidden, not wiped.
function! s:wipe(d, ...) abort
  let in_diff_tab = index([a:d.left, a:d.right], bufnr('')) >= 0
  if get(a:, 1, 0) && bufexists(a:d.right)
    call setbufvar(a:d.right, '&bufhidden', 'hide')
    let a:d.hidden = 1
    for win in win_findbuf(a:d.right)
      call win_execute(win, 'close!')
    endfor
  endif
  for buf in filter([a:d.left] + (get(a:d, 'hidden', 0) ? [] : [a:d.right]), {_, b -> bufexists(b)})
    silent! execute 'bwipeout!' buf
  endfor
  if in_diff_tab
    call s:return_to_user(a:d)
  endif
endfunction

" Back to the user's window. From a timer or channel callback a terminal
" window entered got the next keys in Normal mode until one more key went by:
" an <Ignore> ends that wait, as when the user enters the window.
function! s:return_to_user(d) abort
  if win_gotoid(a:d.prev_win) && &buftype ==# 'terminal'
    call feedkeys("\<Ignore>", 'n')
  endif
endfunction

" Keeps a settled diff's proposal in its tab as a plain scratch buffer (edits
" and all; :w FILE saves it); the on-disk side goes. 0 when it is gone.
function! s:keep(d) abort
  if bufexists(a:d.left)
    silent! execute 'bwipeout!' a:d.left
  endif
  if !bufexists(a:d.right)
    return 0
  endif
  call setbufvar(a:d.right, '&buftype', 'nofile')
  call setbufvar(a:d.right, '&bufhidden', 'hide')
  call setbufvar(a:d.right, 'ide_companion_diff', v:null)
  if get(a:d, 'hidden', 0)
    " Back in a tab of its own; the user's window and mode stay theirs.
    let a:d.prev_win = win_getid()
    execute 'noautocmd tab sbuffer' a:d.right
    noautocmd call s:return_to_user(a:d)
  endif
  return 1
endfunction

" An accept no longer held: kept (`keep`) or wiped; a view still closing sees it.
function! s:unhold(d, keep) abort
  silent! call remove(s:held, a:d.id)
  let a:d.kept = a:keep
  if a:keep
    return s:keep(a:d)
  endif
  if get(a:d, 'hidden', 0) && bufexists(a:d.right)
    silent! execute 'bwipeout!' a:d.right
  endif
  return 1
endfunction

" closeDiff: no outcome is sent. `sessionClosed`: nobody can take an answer,
" so the proposal stays the user's. `message`: the companion's words.
" `accepted`: the host took the accept held since (its copy written, the CLI told).
function! ide_companion#diff#close(params) abort
  if has_key(s:kept_at_death, a:params.diffId)
    call remove(s:kept_at_death, a:params.diffId)
    return v:null
  endif
  let [d, keep] = [get(s:held, a:params.diffId, {}), a:params.reason ==# 'sessionClosed']
  if !empty(d)
    let shown = s:unhold(d, keep)
  else
    let d = get(s:diffs, a:params.diffId, {})
    if empty(d) || !s:settle(d)
      return v:null
    endif
    let shown = keep ? s:keep(d) : 1
    if !keep
      call s:wipe(d)
    endif
  endif
  let message = get(a:params, 'message', '')
  if shown && message !=# ''
    call call(keep ? 'ide_companion#util#warn' : 'ide_companion#util#info', [message])
  endif
  return v:null
endfunction

function! s:find_by_buf(buf) abort
  return get(filter(values(s:diffs), {_, d -> d.right == a:buf || d.left == a:buf}), 0, {})
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
    " Not while Vim is unloading the buffer.
    call timer_start(0, {-> s:reject(d)})
  endif
endfunction

function! s:accept(d) abort
  if !bufexists(a:d.right) || !s:settle(a:d)
    return
  endif
  let msg = {'type': 'diffAccepted', 'diffId': a:d.id}
  let text = s:edited_text(a:d)
  if text isnot v:null
    let msg.content = text
  endif
  call setbufvar(a:d.right, '&modified', 0)
  " Timers: inside BufWriteCmd the buffer can be neither wiped nor retyped.
  if !ide_companion#host#send(msg)
    " Nobody will write it: the proposal stays the user's.
    call timer_start(0, {-> s:keep(a:d) ? ide_companion#util#error(ide_companion#diff#words('acceptUnsent', {'file': fnamemodify(a:d.path, ':t')})) : 0})
    return
  endif
  let s:held[a:d.id] = a:d
  call timer_start(0, {-> get(a:d, 'kept', 0) ? 0 : s:wipe(a:d, get(s:held, a:d.id, {}) is a:d)})
endfunction

function! s:reject(d) abort
  if s:settle(a:d)
    call ide_companion#host#send({'type': 'diffRejected', 'diffId': a:d.id})
    call timer_start(0, {-> s:wipe(a:d)})
  endif
endfunction

" reload (docs/editor-protocol.md): the agent wrote `path`. Unmodified buffers
" reread it without the "changed on disk" prompt (:edit!: :checktime misses a
" write of the same size within the second); a modified one is never dropped.
function! ide_companion#diff#reload(params) abort
  for buf in ide_companion#util#buffers_of(a:params.path)
    if getbufvar(buf, '&modified')
      call ide_companion#util#warn(a:params.unsavedWarning)
    else
      " 'autoread' meanwhile: entering the changed buffer would stop at the prompt;
      " 'undoreload': the user undoes the reread at any size.
      let [had, ur] = [getbufvar(buf, '&autoread'), &undoreload]
      call setbufvar(buf, '&autoread', 1)
      set undoreload=2147483647
      call ide_companion#util#in_window_of(buf, 'silent! edit!')
      call setbufvar(buf, '&autoread', had)
      let &undoreload = ur
    endif
  endfor
  return v:null
endfunction

" :GeminiAccept / :GeminiReject: the diff of the current tab, else the only one open.
function! ide_companion#diff#decide(accept) abort
  let d = s:find_by_buf(bufnr(''))
  for buf in empty(d) ? tabpagebuflist() : []
    let d = empty(d) ? s:find_by_buf(buf) : d
  endfor
  let d = empty(d) && len(s:diffs) == 1 ? values(s:diffs)[0] : d
  if empty(d)
    call ide_companion#util#warn(empty(s:diffs) ? 'no diff is open' : 'several diffs are open: run this in the one to ' . (a:accept ? 'accept' : 'reject'))
  else
    call call(function(a:accept ? 's:accept' : 's:reject'), [d])
  endif
endfunction

function! ide_companion#diff#list() abort
  return map(values(s:diffs), {_, d -> {'id': d.id, 'path': d.path, 'proposal': d.right, 'original': d.left}})
endfunction

" The host died: no outcome can reach the CLI, but the user's work stays.
" Each proposal is kept as s:keep() leaves it, and each accept the host had not
" taken (one it took and the agent had not written yet is the next host's to
" show, kept: acceptedWrites.ts). The files' names, for the line.
function! ide_companion#diff#keep_all() abort
  call extend(s:kept_at_death, map(copy(s:held), {-> 1}))
  let kept = filter(values(s:diffs), {_, d -> s:settle(d) && s:keep(d)}) + filter(values(s:held), {_, d -> s:unhold(d, 1)})
  return map(kept, {_, d -> fnamemodify(d.path, ':t')})
endfunction

" The host went away: its diffs can no longer be answered.
function! ide_companion#diff#close_all() abort
  for d in filter(values(s:diffs), {_, d -> s:settle(d)})
    call s:wipe(d)
  endfor
  call map(values(s:held), {_, d -> s:unhold(d, 0)})
endfunction
