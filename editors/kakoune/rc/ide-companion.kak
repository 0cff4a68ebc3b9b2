# ide-companion for Kakoune: an IDE mode for terminal coding agents (Gemini CLI, Claude Code, Qwen Code...).
# A thin adapter: events go out on idle hooks to kak-bridge (Node), which speaks JSON lines to the
# companion's host; the bridge sends commands back with `kak -p`, every string quoted by one function.
# Commands: ide-start, ide-stop, ide-accept, ide-reject, ide-terminal, ide-status (README.md).

declare-option -docstring 'the node that runs the companion' str ide_companion_node node
declare-option -docstring 'the agent ide-terminal runs' str-list ide_companion_agent gemini
declare-option -docstring 'start the companion when Kakoune starts' bool ide_companion_autostart true
declare-option -hidden str ide_plugin_dir %sh{ dirname "$kak_source" }
declare-option -hidden str ide_fifo
declare-option -hidden str ide_client client0
declare-option -hidden str ide_warning
declare-option -hidden int ide_host_pid
declare-option -hidden str ide_status 'not started'
declare-option -hidden str-list ide_env
declare-option -hidden str ide_prev_buf
declare-option -hidden str ide_prev_sel
declare-option -hidden str ide_diff_id
declare-option -hidden str ide_return_buf
declare-option -hidden str ide_return_sel

define-command -docstring 'ide-start: start the companion (agents find this Kakoune)' ide-start %{
    evaluate-commands %sh{
        [ -n "$kak_opt_ide_fifo" ] && exit
        kq() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/''/g")"; }
        bridge="$kak_opt_ide_plugin_dir/kak-bridge.mjs"
        [ -f "$bridge" ] || bridge="$kak_opt_ide_plugin_dir/../host/kak-bridge.mjs"
        dir=$(mktemp -d "${TMPDIR:-/tmp}/ide-companion-kak.XXXXXX") && mkfifo -m 600 "$dir/in" || {
            echo "fail 'ide-companion: could not make its folder in ${TMPDIR:-/tmp}'"; exit; }
        # The shell holds the FIFO open while the bridge lives, so kak never blocks writing to it;
        # when the bridge is gone it tells kak to stop sending, then removes the folder.
        (
            exec 3<>"$dir/in"
            "$kak_opt_ide_companion_node" "$bridge" "$kak_session" "$dir" "$PPID" "$PWD" </dev/null >/dev/null 2>"$dir/log"
            code=$?
            printf 'ide-gone %s' "$code" | kak -p "$kak_session"
            exec 3>&-
            rm -rf "$dir"
        ) >/dev/null 2>&1 </dev/null &
        printf 'set-option global ide_fifo %s\n' "$(kq "$dir/in")"
        printf 'set-option global ide_status starting\n'
    }
    hook -group ide-companion global NormalIdle .* ide-pos
    hook -group ide-companion global InsertIdle .* ide-pos
    hook -group ide-companion global WinDisplay .* ide-pos
    hook -group ide-companion global FocusIn .* ide-pos
    hook -group ide-companion global BufWritePost .* %{ ide-send saved %val{hook_param} }
    hook -group ide-companion global BufClose .* %{ ide-send closed %val{hook_param} }
    hook -group ide-companion global KakEnd .* %{ ide-send quit }
}

define-command -docstring 'ide-stop: stop the companion' ide-stop %{
    try %{ ide-send quit }
}

# Every event out: one echo of its words, shell-quoted (the bridge reads them back without a shell).
define-command -hidden -params 1.. ide-send %{
    echo -quoting shell -to-file %opt{ide_fifo} -- %arg{@} .
}

# The cursor and the selection's other end, in characters: the anchor read in a draft context flipped onto it.
define-command -hidden ide-pos %{
    try %{
        evaluate-commands -draft "
            execute-keys '<a-;>'
            ide-send pos %%val{client} %%val{buffile} %val{cursor_line} %val{cursor_char_column} %%val{cursor_line} %%val{cursor_char_column}
        "
    }
}

# Called through kak -p by the bridge when it ends: no more events, hooks gone.
define-command -hidden -params 1 ide-gone %{
    remove-hooks global ide-companion
    set-option global ide_fifo ''
    set-option global ide_status "stopped (exit %arg{1})"
    try %{ evaluate-commands -client %opt{ide_client} %{ echo -markup "{Error}ide-companion stopped (exit %arg{1})" } }
}

# Requests from the bridge; each answers `ok ID` or `err ID MESSAGE`.
define-command -hidden -params 2.. ide-answer %{
    try %{
        evaluate-commands %arg{2}
        ide-send ok %arg{1}
    } catch %{
        ide-send err %arg{1} %val{error}
    }
}

# ide-show BUFNAME DIFFID TEXT FOCUS: the proposal in a scratch buffer the user edits, where the user was
# (FOCUS false: made without leaving the user's buffer).
define-command -hidden -params 4 ide-show %{
    evaluate-commands -try-client %opt{ide_client} %{
        set-option global ide_prev_buf %val{bufname}
        set-option global ide_prev_sel %val{selections_desc}
        try %{ delete-buffer! %arg{1} }
        edit -scratch %arg{1}
        set-option buffer ide_diff_id %arg{2}
        set-option buffer ide_return_buf %opt{ide_prev_buf}
        set-option buffer ide_return_sel %opt{ide_prev_sel}
        set-register dquote %arg{3}
        execute-keys '%R'
        execute-keys gg
        evaluate-commands "ide-show-%arg{4}"
    }
}
define-command -hidden ide-show-true %{
    echo -markup "{Information}proposal from the agent: edit it, then :ide-accept or :ide-reject"
}
define-command -hidden ide-show-false %{ ide-back %val{bufname} }

# ide-back BUFNAME: the user's buffer and selections back in this window, the proposal buffer gone.
define-command -hidden -params 1 ide-back %{
    evaluate-commands -buffer %arg{1} %{
        set-option global ide_prev_buf %opt{ide_return_buf}
        set-option global ide_prev_sel %opt{ide_return_sel}
    }
    try %{
        buffer %opt{ide_prev_buf}
        select %opt{ide_prev_sel}
    }
    delete-buffer! %arg{1}
}

# ide-close BUFNAME: the agent closed the diff (no outcome).
define-command -hidden -params 1 ide-close %{
    try %{
        evaluate-commands -client %opt{ide_client} %{
            evaluate-commands %sh{ [ "$kak_bufname" = "$1" ] && echo "ide-back %arg{1}" || echo "delete-buffer! %arg{1}" }
        }
    } catch %{ delete-buffer! %arg{1} }
}

# ide-keep BUFNAME NEWNAME: the proposal stays, no longer one (nobody can take its answer).
define-command -hidden -params 2 ide-keep %{
    evaluate-commands -buffer %arg{1} %{
        unset-option buffer ide_diff_id
        try %{ rename-buffer -scratch %arg{2} }
    }
}

# ide-text ID BUFNAME: the proposal's text as the user left it.
define-command -hidden -params 2 ide-text %{
    evaluate-commands -buffer %arg{2} %{
        execute-keys '%'
        ide-send text %arg{1} %val{selection}
    }
}

# ide-selected ID: the main selection's text (one character is Kakoune's bare cursor: none).
define-command -hidden -params 1 ide-selected %{
    evaluate-commands -try-client %opt{ide_client} %{
        ide-send selected %arg{1} %val{selection_length} %val{selection}
    }
}

define-command -hidden ide-in-proposal %{
    evaluate-commands %sh{ [ -n "$kak_opt_ide_diff_id" ] || echo "fail 'not a proposal buffer'" }
}

define-command -docstring 'ide-accept: accept the proposal in this buffer, with your edits' ide-accept %{
    ide-in-proposal
    evaluate-commands -save-regs a %{
        evaluate-commands -draft %{ execute-keys '%'; set-register a %val{selection} }
        ide-send accept %opt{ide_diff_id} %reg{a}
    }
    ide-back %val{bufname}
}

define-command -docstring 'ide-reject: reject the proposal in this buffer' ide-reject %{
    ide-in-proposal
    ide-send reject %opt{ide_diff_id}
    ide-back %val{bufname}
}

# ide-reload PATH: reread an unmodified buffer of PATH keeping its undo history (the agent wrote the file).
define-command -hidden -params 2 ide-reload %{
    set-option global ide_warning %arg{2}
    evaluate-commands -buffer %arg{1} %{ evaluate-commands "ide-reload-%val{modified}" }
}
define-command -hidden ide-reload-false %{ edit! }
define-command -hidden ide-reload-true %{
    try %{ evaluate-commands -client %opt{ide_client} %{ echo -- %opt{ide_warning} } }
}

define-command -docstring 'ide-terminal [<agent> <args>...]: run the agent (default gemini) in a terminal connected to this Kakoune' \
    -params .. ide-terminal %{
    evaluate-commands %sh{ [ $# -gt 0 ] && echo 'terminal env %opt{ide_env} %arg{@}' || echo 'terminal env %opt{ide_env} %opt{ide_companion_agent}' }
}

define-command -docstring 'ide-status: what the companion serves and who is connected' ide-status %{
    echo %opt{ide_status}
}

hook -group ide-companion-start global KakBegin .* %{
    evaluate-commands %sh{ [ "$kak_opt_ide_companion_autostart" = true ] && echo ide-start }
}
