" Requests from the host (docs/editor-protocol.md "Actions"), their params
" already validated there: each returns its result or throws a sentence for
" the user; host.vim sends the response.

let s:HANDLERS = {
      \ 'showDiff': {p -> ide_companion#diff#show(p)},
      \ 'diffText': {p -> ide_companion#diff#text(p)},
      \ 'closeDiff': {p -> ide_companion#diff#close(p)},
      \ 'reload': {p -> ide_companion#diff#reload(p)},
      \ 'openFile': {p -> s:open_file(p)},
      \ 'getOpenEditors': {p -> s:open_editors()},
      \ 'getSelection': {p -> s:selection()},
      \ 'diagnosticItems': {p -> ide_companion#diagnostics#items()},
      \ 'checkDocumentDirty': {p -> s:dirty(p.path)},
      \ 'saveDocument': {p -> s:save(p.path)},
      \ 'closeFile': {p -> s:close_file(p.path)},
      \ 'selectedText': {p -> {'text': ide_companion#position#selected_text(p.maxChars)}},
      \ }

function! ide_companion#actions#run(action, params) abort
  if !has_key(s:HANDLERS, a:action)
    throw 'Vim does not know the action "' . a:action . '"'
  endif
  return s:HANDLERS[a:action](type(a:params) == v:t_dict ? a:params : {})
endfunction

" The window of the file the user works on: the current one if it shows a
" file, else the most recently used one that does (the user may be typing in
" the agent's terminal).
function! s:active_file_window() abort
  if ide_companion#util#open_file_of(bufnr('')) !=# ''
    return win_getid()
  endif
  let [best, best_used] = [0, -1]
  for info in filter(getwininfo(), {_, w -> w.tabnr == tabpagenr() && ide_companion#util#open_file_of(w.bufnr) !=# ''})
    let used = getbufinfo(info.bufnr)[0].lastused
    if used > best_used
      let [best, best_used] = [info.winid, used]
    endif
  endfor
  return best
endfunction

function! s:open_file(params) abort
  let path = a:params.path
  let shown = filter(win_findbuf(get(ide_companion#util#buffers_of(path, 1), 0, -1)), {_, w -> win_id2tabwin(w)[0] == tabpagenr()})
  if !empty(shown)
    call win_gotoid(shown[0])
  else
    call win_gotoid(s:active_file_window())
    " Never abandon unsaved changes or the agent's terminal: split instead.
    let split = &buftype !=# '' || (&modified && !&hidden && len(win_findbuf(bufnr(''))) == 1)
    execute (split ? 'split' : 'edit') fnameescape(path)
  endif
  let line = get(a:params, 'line', 0)
  if line > 0
    let line = min([line, line('$')])
    let col = ide_companion#util#byte_col(getline(line), get(a:params, 'column', 1))
    call cursor(line, col)
    if has_key(a:params, 'endLine')
      call s:select_to(line, col, a:params.endLine, get(a:params, 'endColumn', v:null))
    endif
    normal! zv
  endif
  return v:null
endfunction

" Selects (charwise) from (line, col) up to, not including, character
" end_column of end_line (no end_column: the whole of end_line).
function! s:select_to(line, col, end_line, end_column) abort
  let elnum = min([max([a:end_line, a:line]), line('$')])
  let last = min([a:end_column is v:null ? strchars(getline(elnum)) : a:end_column - 1, strchars(getline(elnum))])
  if last < 1 && elnum > a:line
    " Ends before the first character of a line: the selection ends with the line before.
    let elnum -= 1
    let last = strchars(getline(elnum))
  endif
  let ecol = ide_companion#util#byte_col(getline(elnum), max([last, 1]))
  call setpos("'<", [0, a:line, a:col, 0])
  call setpos("'>", [0, elnum, elnum == a:line ? max([ecol, a:col]) : ecol, 0])
  " gv reuses the last selection's kind: make it charwise.
  normal! gv
  if mode() !=# 'v'
    normal! v
  endif
endfunction

function! s:open_editors() abort
  let win = s:active_file_window()
  let active = win ? winbufnr(win) : bufnr('')
  let editors = []
  for info in getbufinfo({'buflisted': 1})
    let path = ide_companion#util#file_of(info.bufnr)
    if path !=# ''
      let editor = {'path': path, 'isActive': info.bufnr == active ? v:true : v:false, 'isDirty': info.changed ? v:true : v:false}
      if info.loaded
        let editor.lineCount = info.linecount
      endif
      if getbufvar(info.bufnr, '&filetype') !=# ''
        let editor.languageId = getbufvar(info.bufnr, '&filetype')
      endif
      call add(editors, editor)
    endif
  endfor
  return {'editors': editors}
endfunction

" The live selection in Visual mode, else the last one of the active file
" (the user may have gone to the agent's terminal since making it).
function! s:selection() abort
  let [win, selection] = [s:active_file_window(), {}]
  if win
    call win_execute(win, 'let selection = ide_companion#position#selection()')
  endif
  if empty(selection)
    return {'selection': v:null}
  endif
  let selection.path = ide_companion#util#file_of(winbufnr(win))
  return {'selection': selection}
endfunction

function! s:dirty(path) abort
  let buf = get(ide_companion#util#buffers_of(a:path, 1), 0, -1)
  return {'isOpen': buf > 0 ? v:true : v:false, 'isDirty': buf > 0 && getbufvar(buf, '&modified') ? v:true : v:false,
        \ 'readOnly': buf > 0 && getbufvar(buf, '&readonly') ? v:true : v:false}
endfunction

function! s:save(path) abort
  let buf = get(ide_companion#util#buffers_of(a:path, 1), 0, -1)
  if buf < 0
    return {'saved': v:false, 'message': fnamemodify(a:path, ':~:.') . ' is not open in Vim'}
  elseif !getbufvar(buf, '&modified')
    return {'saved': v:true, 'message': 'no unsaved changes'}
  endif
  try
    call ide_companion#util#in_window_of(buf, 'silent write')
  catch
    return {'saved': v:false, 'message': substitute(v:exception, '^Vim\%((\a\+)\)\=:', '', '')}
  endtry
  return getbufvar(buf, '&modified') ? {'saved': v:false, 'message': 'Vim did not write the buffer'} : {'saved': v:true}
endfunction

" closeFile: the companion takes back an openFile whose path was swapped while
" Vim opened it: the buffer goes, unless it has unsaved changes.
function! s:close_file(path) abort
  let buf = get(ide_companion#util#buffers_of(a:path, 1), 0, -1)
  if buf > 0 && !getbufvar(buf, '&modified')
    execute 'bwipeout' buf
  endif
  return v:null
endfunction
