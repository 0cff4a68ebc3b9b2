" Requests from the host (docs/editor-protocol.md "Actions"): each returns
" its result or throws a sentence for the user; host.vim sends the response.

" The handlers, by action name (as packages/server/src/tools): each takes the params dict.
let s:HANDLERS = {
      \ 'showDiff': {p -> ide_companion#diff#show(p)},
      \ 'diffText': {p -> ide_companion#diff#text(p)},
      \ 'closeDiff': {p -> ide_companion#diff#close(p)},
      \ 'reload': {p -> ide_companion#diff#reload(p)},
      \ 'openFile': {p -> s:open_file(p)},
      \ 'getOpenEditors': {p -> s:open_editors()},
      \ 'getSelection': {p -> s:selection()},
      \ 'diagnosticItems': {p -> ide_companion#diagnostics#items()},
      \ 'checkDocumentDirty': {p -> s:dirty(p)},
      \ 'saveDocument': {p -> s:save(p)},
      \ 'closeFile': {p -> s:close_file(p)},
      \ 'selectedText': {p -> s:selected_text(p)},
      \ }

function! ide_companion#actions#run(action, params) abort
  let Handler = get(s:HANDLERS, a:action, v:null)
  if Handler is v:null
    throw 'Vim does not know the action "' . a:action . '"'
  endif
  return Handler(type(a:params) == v:t_dict ? a:params : {})
endfunction

" The host reads the selection's text when the range it was sent changed.
function! s:selected_text(params) abort
  let max = get(a:params, 'maxChars', 0)
  if type(max) != v:t_number || max < 1
    throw 'maxChars must be a positive number'
  endif
  return {'text': ide_companion#position#selected_text(max)}
endfunction

function! s:path_param(params) abort
  let path = get(a:params, 'path', v:null)
  if type(path) != v:t_string || path ==# ''
    throw 'path must be a non-empty string'
  endif
  return path
endfunction

" The listed buffer of `path`, or -1: loaded or not, as getOpenEditors lists
" it (with 'nohidden', a file the user left is unloaded but still open).
" A loaded one first, through symlinks too.
function! s:buffer_of(path) abort
  let want = resolve(a:path)
  let found = -1
  for info in getbufinfo({'buflisted': 1})
    let file = ide_companion#util#file_of(info.bufnr)
    if file !=# '' && (file ==# a:path || resolve(file) ==# want)
      if info.loaded
        return info.bufnr
      endif
      let found = found < 0 ? info.bufnr : found
    endif
  endfor
  return found
endfunction

" The window showing the file the user works on: the current one if it shows
" a file, else the most recently used window that does (the user may be typing
" in Gemini CLI's terminal).
function! s:active_file_window() abort
  if ide_companion#util#open_file_of(bufnr('')) !=# ''
    return win_getid()
  endif
  let best = 0
  let best_used = -1
  for info in getwininfo()
    if info.tabnr == tabpagenr() && ide_companion#util#open_file_of(info.bufnr) !=# ''
      let used = getbufinfo(info.bufnr)[0].lastused
      if used > best_used
        let [best, best_used] = [info.winid, used]
      endif
    endif
  endfor
  return best
endfunction

function! s:open_file(params) abort
  let path = s:path_param(a:params)
  let winid = win_findbuf(s:buffer_of(path))
  let shown = filter(copy(winid), {_, w -> win_id2tabwin(w)[0] == tabpagenr()})
  if !empty(shown)
    call win_gotoid(shown[0])
  else
    let target = s:active_file_window()
    if target
      call win_gotoid(target)
    endif
    " Never abandon unsaved changes or the CLI's terminal: split instead.
    let split = &buftype !=# '' || (&modified && !&hidden && bufwinnr('') == winnr() && len(win_findbuf(bufnr(''))) == 1)
    execute (split ? 'split' : 'edit') fnameescape(path)
  endif
  let line = get(a:params, 'line', v:null)
  if type(line) == v:t_number && line > 0
    let line = min([line, line('$')])
    let column = get(a:params, 'column', v:null)
    let col = type(column) == v:t_number ? ide_companion#util#byte_col(getline(line), column) : 1
    call cursor(line, col)
    let end_line = get(a:params, 'endLine', v:null)
    if type(end_line) == v:t_number
      call s:select_to(line, col, end_line, get(a:params, 'endColumn', v:null))
    endif
    normal! zv
  endif
  return v:null
endfunction

" Selects (Visual mode, charwise) from (line, col) up to, not including,
" character end_column of end_line (no end_column: the whole of end_line),
" as openFile's endLine/endColumn ask.
function! s:select_to(line, col, end_line, end_column) abort
  let elnum = min([max([a:end_line, a:line]), line('$')])
  let text = getline(elnum)
  let last = strchars(text)
  if type(a:end_column) == v:t_number
    let last = min([a:end_column - 1, last])
  endif
  if last < 1 && elnum > a:line
    " Ends before the first character of a line: the selection ends with the line before.
    let elnum -= 1
    let text = getline(elnum)
    let last = strchars(text)
  endif
  let ecol = ide_companion#util#byte_col(text, max([last, 1]))
  if elnum == a:line
    let ecol = max([ecol, a:col])
  endif
  call setpos("'<", [0, a:line, a:col, 0])
  call setpos("'>", [0, elnum, ecol, 0])
  normal! gv
  if mode() !=# 'v'
    " gv reuses the last selection's kind: make it charwise.
    normal! v
  endif
endfunction

function! s:open_editors() abort
  let active = bufnr('')
  let win = s:active_file_window()
  if win
    let active = winbufnr(win)
  endif
  let editors = []
  for info in getbufinfo({'buflisted': 1})
    let path = ide_companion#util#file_of(info.bufnr)
    if path ==# ''
      continue
    endif
    let editor = {'path': path, 'isActive': info.bufnr == active ? v:true : v:false, 'isDirty': info.changed ? v:true : v:false}
    if info.loaded
      let editor.lineCount = info.linecount
    endif
    let filetype = getbufvar(info.bufnr, '&filetype')
    if filetype !=# ''
      let editor.languageId = filetype
    endif
    call add(editors, editor)
  endfor
  return {'editors': editors}
endfunction

" The live selection in Visual mode, else the last one of the active file
" (the user may have gone to Gemini CLI's terminal since making it).
function! s:selection() abort
  let win = s:active_file_window()
  if !win
    return {'selection': v:null}
  endif
  let selection = {}
  call win_execute(win, 'let selection = ide_companion#position#selection()')
  if empty(selection)
    return {'selection': v:null}
  endif
  let selection.path = ide_companion#util#file_of(winbufnr(win))
  return {'selection': selection}
endfunction

function! s:dirty(params) abort
  let buf = s:buffer_of(s:path_param(a:params))
  if buf < 0
    return {'isOpen': v:false, 'isDirty': v:false}
  endif
  return {'isOpen': v:true, 'isDirty': getbufvar(buf, '&modified') ? v:true : v:false}
endfunction

function! s:save(params) abort
  let path = s:path_param(a:params)
  let buf = s:buffer_of(path)
  if buf < 0
    return {'saved': v:false, 'message': fnamemodify(path, ':~:.') . ' is not open in Vim'}
  endif
  if !getbufvar(buf, '&modified')
    return {'saved': v:true, 'message': 'no unsaved changes'}
  endif
  let wins = win_findbuf(buf)
  let error = ''
  if !empty(wins)
    try
      call win_execute(wins[0], 'silent write')
    catch
      let error = v:exception
    endtry
  else
    " Not shown anywhere: write it from a window of its own for a moment.
    let back = win_getid()
    try
      execute 'silent keepalt noswapfile sbuffer' buf
      write
    catch
      let error = v:exception
    finally
      if bufnr('') == buf && win_getid() != back
        close
      endif
      call win_gotoid(back)
    endtry
  endif
  if error !=# '' || getbufvar(buf, '&modified')
    return {'saved': v:false, 'message': error !=# '' ? substitute(error, '^Vim\%((\a\+)\)\=:', '', '') : 'Vim did not write the buffer'}
  endif
  return {'saved': v:true}
endfunction

" closeFile: the companion takes back an openFile whose path was swapped while
" Vim opened it (it re-checks after the open): the buffer goes, unless it has
" unsaved changes.
function! s:close_file(params) abort
  let buf = s:buffer_of(s:path_param(a:params))
  if buf > 0 && !getbufvar(buf, '&modified')
    execute 'bwipeout' buf
  endif
  return v:null
endfunction

