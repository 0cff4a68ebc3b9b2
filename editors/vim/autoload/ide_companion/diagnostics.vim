" diagnosticItems: what Vim users have, unshaped (the host shapes, filters and
" dedupes them: packages/server/src/diagnosticItems.ts): the quickfix list,
" every window's location list, and ALE, vim-lsp or coc.nvim when they are
" loaded (detected at run time; none is required).

let s:QF_KEYS = ['lnum', 'col', 'end_lnum', 'end_col', 'vcol', 'type', 'text', 'nr', 'valid', 'code']

" A quickfix-like item: its file, and the text of its lines (loaded buffers) for character columns.
function! s:qf(item, source) abort
  let buf = get(a:item, 'bufnr', 0)
  return extend(filter(copy(a:item), {k, _ -> index(s:QF_KEYS, k) >= 0}), {'kind': 'qf', 'source': a:source,
        \ 'path': ide_companion#util#file_of(buf), 'line': get(getbufline(buf, get(a:item, 'lnum', 0)), 0, v:null),
        \ 'endLine': get(getbufline(buf, get(a:item, 'end_lnum', 0)), 0, v:null)})
endfunction

function! s:ale() abort
  let out = []
  if exists('g:loaded_ale_dont_use_this_in_other_plugins_please') || exists('g:ale_enabled')
    for info in getbufinfo({'bufloaded': 1})
      try
        let out += map(ale#engine#GetLoclist(info.bufnr), {_, i -> s:qf(extend({'bufnr': info.bufnr}, i, 'keep'), get(i, 'linter_name', 'ale'))})
      catch
        break
      endtry
    endfor
  endif
  return out
endfunction

function! s:vim_lsp() abort
  let out = []
  try
    for [uri, servers] in exists('g:lsp_loaded') ? items(lsp#internal#diagnostics#state#_get_all_diagnostics_grouped_by_uri_and_server()) : []
      let path = fnamemodify(lsp#utils#uri_to_path(uri), ':p')
      for [server, response] in items(servers)
        let out += map(copy(get(get(response, 'params', {}), 'diagnostics', [])), {_, d -> {'kind': 'lsp', 'path': path, 'source': server, 'diagnostic': d}})
      endfor
    endfor
  catch
  endtry
  return out
endfunction

function! s:coc() abort
  try
    let items = exists('g:did_coc_loaded') && exists('*CocAction') ? CocAction('diagnosticList') : []
  catch
    return []
  endtry
  return map(type(items) == v:t_list ? items : [], {_, i -> extend({'kind': 'coc', 'path': fnamemodify(get(i, 'file', ''), ':p')}, i, 'keep')})
endfunction

function! ide_companion#diagnostics#items() abort
  let items = map(getqflist(), {_, i -> s:qf(i, 'quickfix')})
  for info in filter(getwininfo(), {_, w -> !w.loclist && !w.quickfix})
    let items += map(getloclist(info.winid), {_, i -> s:qf(i, 'loclist')})
  endfor
  return {'items': items + s:ale() + s:vim_lsp() + s:coc()}
endfunction
