" Requests from the host (docs/editor-protocol.md "Actions"): each returns
" its result or throws a sentence for the user; host.vim sends the response.

function! ide_companion#actions#run(action, params) abort
  let params = type(a:params) == v:t_dict ? a:params : {}
  if !has_key(s:HANDLERS, a:action)
    throw 'Vim does not know the action "' . a:action . '"'
  endif
  return s:HANDLERS[a:action](params)
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
    normal! zv
  endif
  return v:null
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

" The handlers by action name, each taking the params dict (a table, as
" packages/server/src/tools is, not a chain of ifs).
let s:HANDLERS = {
      \ 'showDiff': function('ide_companion#diff#show'),
      \ 'diffText': function('ide_companion#diff#text'),
      \ 'closeDiff': function('ide_companion#diff#close'),
      \ 'reload': function('ide_companion#diff#reload'),
      \ 'openFile': function('s:open_file'),
      \ 'getOpenEditors': {_ -> s:open_editors()},
      \ 'getSelection': {_ -> s:selection()},
      \ 'getDiagnostics': {params -> ide_companion#diagnostics#collect(get(params, 'path', v:null))},
      \ 'checkDocumentDirty': function('s:dirty'),
      \ 'saveDocument': function('s:save'),
      \ 'closeFile': function('s:close_file'),
      \ }
