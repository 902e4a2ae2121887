# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_cru_global_optspecs
    string join \n v/verbose dir= h/help V/version
end

function __fish_cru_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_cru_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_cru_using_subcommand
    set -l cmd (__fish_cru_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c cru -n "__fish_cru_needs_command" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_needs_command" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_needs_command" -s h -l help -d 'Print help'
complete -c cru -n "__fish_cru_needs_command" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_needs_command" -f -a "session" -d 'Work with sessions: show, validate'
complete -c cru -n "__fish_cru_needs_command" -f -a "completions" -d 'Print a shell completion script'
complete -c cru -n "__fish_cru_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c cru -n "__fish_cru_using_subcommand session; and not __fish_seen_subcommand_from show validate help" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand session; and not __fish_seen_subcommand_from show validate help" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand session; and not __fish_seen_subcommand_from show validate help" -s h -l help -d 'Print help'
complete -c cru -n "__fish_cru_using_subcommand session; and not __fish_seen_subcommand_from show validate help" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand session; and not __fish_seen_subcommand_from show validate help" -f -a "show" -d 'Show a session: its metadata, phases, tool calls and callouts'
complete -c cru -n "__fish_cru_using_subcommand session; and not __fish_seen_subcommand_from show validate help" -f -a "validate" -d 'Check session files against the format; exit 1 if any is invalid'
complete -c cru -n "__fish_cru_using_subcommand session; and not __fish_seen_subcommand_from show validate help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from show" -l format -d 'How to print it' -r -f -a "text\t'For people: a header, then phases with callouts set apart (colour on a terminal)'
markdown\t'The canonical markdown of the file'
json\t'The parsed session as JSON'"
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from show" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from show" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from validate" -l format -d 'How to print the problems' -r -f -a "text\t'`file:line: error: message`, one per line'
json\t'One JSON object per file: path, valid, errors, warnings'"
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from validate" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from validate" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from validate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from validate" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show a session: its metadata, phases, tool calls and callouts'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from help" -f -a "validate" -d 'Check session files against the format; exit 1 if any is invalid'
complete -c cru -n "__fish_cru_using_subcommand session; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c cru -n "__fish_cru_using_subcommand completions" -l dir -d 'The sessions directory (overrides $CRU_SESSIONS_DIR and the config)' -r -F
complete -c cru -n "__fish_cru_using_subcommand completions" -s v -l verbose -d 'More log output on stderr (-v info, -vv debug, -vvv trace)'
complete -c cru -n "__fish_cru_using_subcommand completions" -s h -l help -d 'Print help'
complete -c cru -n "__fish_cru_using_subcommand completions" -s V -l version -d 'Print version'
complete -c cru -n "__fish_cru_using_subcommand help; and not __fish_seen_subcommand_from session completions help" -f -a "session" -d 'Work with sessions: show, validate'
complete -c cru -n "__fish_cru_using_subcommand help; and not __fish_seen_subcommand_from session completions help" -f -a "completions" -d 'Print a shell completion script'
complete -c cru -n "__fish_cru_using_subcommand help; and not __fish_seen_subcommand_from session completions help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c cru -n "__fish_cru_using_subcommand help; and __fish_seen_subcommand_from session" -f -a "show" -d 'Show a session: its metadata, phases, tool calls and callouts'
complete -c cru -n "__fish_cru_using_subcommand help; and __fish_seen_subcommand_from session" -f -a "validate" -d 'Check session files against the format; exit 1 if any is invalid'
