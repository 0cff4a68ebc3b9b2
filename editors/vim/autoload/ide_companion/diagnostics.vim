" getDiagnostics from what Vim users have: the quickfix list, every window's
" location list, and ALE, vim-lsp or coc.nvim when they are loaded (detected
" at run time; none is required). The same problem reported twice (ALE fills
" the location list too) is listed once.

let s:SEVERITY = {'E': 'error', 'W': 'warning', 'I': 'information', 'N': 'hint', 'H': 'hint'}
let s:LSP_SEVERITY = {1: 'error', 2: 'warning', 3: 'information', 4: 'hint'}

" 1-based character column of byte column `col` on `line` of `path`, when the buffer is loaded.
function! s:char_col(buf, line, col) abort
  if a:col <= 1 || a:buf <= 0 || !bufloaded(a:buf)
    return max([a:col, 1])
  endif
  let text = get(getbufline(a:buf, a:line), 0, '')
  return ide_companion#util#char_col(text, a:col)
endfunction

function! s:from_item(item, source) abort
  let buf = get(a:item, 'bufnr', 0)
  let path = ide_companion#util#file_of(buf)
  let lnum = get(a:item, 'lnum', 0)
  if path ==# '' || lnum <= 0 || !get(a:item, 'valid', 1)
    return {}
  endif
  let col = get(a:item, 'col', 0)
  " 'vcol' items count screen columns; close enough to characters for a report.
  let start = {'line': lnum, 'character': get(a:item, 'vcol', 0) ? max([col, 1]) : s:char_col(buf, lnum, col)}
  let end_lnum = get(a:item, 'end_lnum', 0)
  let end_col = get(a:item, 'end_col', 0)
  let end = end_lnum > 0 ? {'line': end_lnum, 'character': s:char_col(buf, end_lnum, max([end_col, 1]))} : copy(start)
  " Untyped entries (:grep, :vimgrep, some :make output) are not known to be errors.
  let severity = get(s:SEVERITY, toupper(get(a:item, 'type', '')), 'information')
  let diagnostic = {'path': path, 'range': {'start': start, 'end': end}, 'severity': severity, 'message': get(a:item, 'text', '')}
  if a:source !=# ''
    let diagnostic.source = a:source
  endif
  let nr = get(a:item, 'nr', 0)
  if type(nr) == v:t_number && nr > 0
    let diagnostic.code = string(nr)
  endif
  return diagnostic
endfunction

function! s:ale(buffers) abort
  if !exists('g:loaded_ale_dont_use_this_in_other_plugins_please') && !exists('g:ale_enabled')
    return []
  endif
  let out = []
  for buf in a:buffers
    try
      let items = ale#engine#GetLoclist(buf)
    catch
      return out
    endtry
    for item in items
      let d = s:from_item(extend({'bufnr': buf}, item, 'keep'), get(item, 'linter_name', 'ale'))
      if !empty(d)
        if has_key(item, 'code')
          let d.code = type(item.code) == v:t_string ? item.code : string(item.code)
        endif
        call add(out, d)
      endif
    endfor
  endfor
  return out
endfunction

function! s:lsp_range(range) abort
  " LSP positions are 0-based, characters in UTF-16 units; close enough for a report.
  return {
        \ 'start': {'line': a:range.start.line + 1, 'character': a:range.start.character + 1},
        \ 'end': {'line': a:range.end.line + 1, 'character': a:range.end.character + 1},
        \ }
endfunction

function! s:vim_lsp() abort
  if !exists('g:lsp_loaded')
    return []
  endif
  try
    let grouped = lsp#internal#diagnostics#state#_get_all_diagnostics_grouped_by_uri_and_server()
  catch
    return []
  endtry
  let out = []
  for [uri, servers] in items(grouped)
    let path = lsp#utils#uri_to_path(uri)
    for [server, response] in items(servers)
      for diag in get(get(response, 'params', {}), 'diagnostics', [])
        let d = {'path': fnamemodify(path, ':p'), 'range': s:lsp_range(diag.range),
              \ 'severity': get(s:LSP_SEVERITY, get(diag, 'severity', 1), 'error'),
              \ 'message': get(diag, 'message', ''), 'source': get(diag, 'source', server)}
        if has_key(diag, 'code')
          let d.code = type(diag.code) == v:t_string ? diag.code : string(diag.code)
        endif
        call add(out, d)
      endfor
    endfor
  endfor
  return out
endfunction

function! s:coc() abort
  if !exists('g:did_coc_loaded') || !exists('*CocAction')
    return []
  endif
  try
    let items = CocAction('diagnosticList')
  catch
    return []
  endtry
  let out = []
  for item in type(items) == v:t_list ? items : []
    let start = {'line': get(item, 'lnum', 1), 'character': get(item, 'col', 1)}
    let end = {'line': get(item, 'end_lnum', start.line), 'character': get(item, 'end_col', start.character)}
    let d = {'path': fnamemodify(get(item, 'file', ''), ':p'), 'range': {'start': start, 'end': end},
          \ 'severity': get({'Error': 'error', 'Warning': 'warning', 'Information': 'information', 'Hint': 'hint'}, get(item, 'severity', ''), 'error'),
          \ 'message': get(item, 'message', ''), 'source': get(item, 'source', 'coc')}
    if has_key(item, 'code') && item.code isnot v:null
      let d.code = type(item.code) == v:t_string ? item.code : string(item.code)
    endif
    call add(out, d)
  endfor
  return out
endfunction

" {'diagnostics': [...]} for `path` (a string), or the whole workspace (v:null).
function! ide_companion#diagnostics#collect(path) abort
  if a:path isnot v:null && type(a:path) != v:t_string
    throw 'path must be a string'
  endif
  let all = []
  for item in getqflist()
    call add(all, s:from_item(item, 'quickfix'))
  endfor
  for info in getwininfo()
    if info.loclist || info.quickfix
      continue
    endif
    for item in getloclist(info.winid)
      call add(all, s:from_item(item, 'loclist'))
    endfor
  endfor
  let buffers = map(filter(getbufinfo({'bufloaded': 1}), {_, b -> ide_companion#util#file_of(b.bufnr) !=# ''}), {_, b -> b.bufnr})
  let all += s:ale(buffers) + s:vim_lsp() + s:coc()

  let want = a:path is v:null ? '' : resolve(fnamemodify(a:path, ':p'))
  let seen = {}
  let out = []
  for d in all
    if empty(d) || (want !=# '' && d.path !=# a:path && resolve(d.path) !=# want)
      continue
    endif
    let key = join([d.path, d.range.start.line, d.range.start.character, d.message], "\x01")
    if has_key(seen, key)
      continue
    endif
    let seen[key] = 1
    call add(out, d)
  endfor
  return {'diagnostics': out}
endfunction
