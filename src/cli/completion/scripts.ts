// The scripts `pvctl completion SHELL` prints. Each asks `pvctl __complete` for the candidates of the word
// under the cursor, with the words before it, and reads cobra's protocol back: one candidate a line (a tab,
// then a description), the last line `:DIRECTIVE` (candidates.ts). The shells only present: what to
// complete is decided in one place, for every shell alike.
import {Directive} from './candidates.js'

export const SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const
export type Shell = (typeof SHELLS)[number]

export function completionScript(shell: Shell, program: string): string {
  const fn = `__${program.replace(/[^A-Za-z0-9_]/g, '_')}_complete`
  switch (shell) {
    case 'bash':
      return bash(program, fn)
    case 'zsh':
      return zsh(program, fn)
    case 'fish':
      return fish(program, fn)
    case 'powershell':
      return powershell(program, fn)
  }
}

const {NoSpace, NoFileComp, Error: Failed} = Directive

function bash(program: string, fn: string): string {
  return `# bash completion for ${program}. Load it in this shell with
#   source <(${program} completion bash)
# or for every new shell: add that line to ~/.bashrc.

${fn}() {
    # The words as ${program} takes them: bash splits --output=json and a:b at COMP_WORDBREAKS, rejoin them.
    local -a words=()
    local i w glue=0
    for ((i = 1; i <= COMP_CWORD; i++)); do
        w=\${COMP_WORDS[i]}
        if ((\${#words[@]} > 0)) && [[ $w == "=" || $w == ":" || $glue == 1 ]]; then
            words[\${#words[@]}-1]+=$w
        else
            words+=("$w")
        fi
        if [[ $w == "=" || $w == ":" ]]; then glue=1; else glue=0; fi
    done
    ((\${#words[@]} == 0)) && words=("")
    local cur=\${words[\${#words[@]}-1]}
    # What bash replaces is its own last word: the part of cur before it is left out of each candidate.
    local drop=""
    [[ -n \${COMP_WORDS[COMP_CWORD]} ]] && drop=\${cur%"\${COMP_WORDS[COMP_CWORD]}"}

    local out directive=0 line
    out=$("\${COMP_WORDS[0]}" __complete "\${words[@]}" 2>/dev/null) || return 0
    COMPREPLY=()
    while IFS= read -r line; do
        case $line in
        :[0-9]*) directive=\${line#:} ;;
        "") ;;
        *) line=\${line%%$'\\t'*}; COMPREPLY+=("\${line#"$drop"}") ;;
        esac
    done <<<"$out"

    if ((directive & ${Failed})); then
        COMPREPLY=()
        return 0
    fi
    if ((directive & ${NoSpace})); then compopt -o nospace 2>/dev/null; fi
    # With no candidate, file names (complete -o default) unless ${program} says there are none to give.
    if ((directive & ${NoFileComp})); then compopt +o default 2>/dev/null; fi
    return 0
}

complete -o default -F ${fn} ${program}
`
}

function zsh(program: string, fn: string): string {
  return `#compdef ${program}
# zsh completion for ${program}. Load it in this shell (after compinit) with
#   source <(${program} completion zsh)
# or for every new shell: ${program} completion zsh > "\${fpath[1]}/_${program}"

${fn}() {
    local out directive line
    local -a lines candidates
    out=$(\${words[1]} __complete "\${(@)words[2,CURRENT]}" 2>/dev/null) || return 1
    lines=("\${(@f)out}")
    directive=\${\${lines[-1]}#:}
    for line in "\${(@)lines[1,-2]}"; do
        [[ -z $line ]] && continue
        # _describe reads NAME:DESCRIPTION; a colon in the name is escaped.
        candidates+=("\${\${line%%$'\\t'*}//:/\\\\:}\${\${(M)line%%$'\\t'*}:+:\${line#*$'\\t'}}")
    done
    (( directive & ${Failed} )) && return 1
    if (( \${#candidates} == 0 )); then
        (( directive & ${NoFileComp} )) || _files
        return
    fi
    if (( directive & ${NoSpace} )); then
        _describe -t ${program} '${program}' candidates -S ''
    else
        _describe -t ${program} '${program}' candidates
    fi
}

if (( \${+functions[compdef]} )); then
    compdef ${fn} ${program}
fi
# Autoloaded from fpath as _${program}: this first call completes too.
if [[ \${funcstack[1]} == _${program} ]]; then
    ${fn} "$@"
fi
`
}

function fish(program: string, fn: string): string {
  return `# fish completion for ${program}. Load it in this shell with
#   ${program} completion fish | source
# or for every new shell: ${program} completion fish > ~/.config/fish/completions/${program}.fish

function ${fn}
    set -l tokens (commandline -opc)
    # Quoted: an empty word to complete is still a word.
    set -l current (commandline -ct)
    set -l out (command $tokens[1] __complete $tokens[2..-1] "$current" 2>/dev/null)
    or return
    set -l directive (string replace -r '^:' '' -- $out[-1])
    set -e out[-1]
    if test (math "bitand($directive, ${Failed})") -ne 0
        return
    end
    if test (count $out) -eq 0
        if test (math "bitand($directive, ${NoFileComp})") -eq 0
            __fish_complete_path "$current"
        end
        return
    end
    # fish reads NAME<TAB>DESCRIPTION itself.
    printf '%s\\n' $out
end

complete -c ${program} -f -a '(${fn})'
`
}

function powershell(program: string, fn: string): string {
  return `# PowerShell completion for ${program}. Load it in the current shell with
#   ${program} completion powershell | Out-String | Invoke-Expression
# or for every new session: add that line to $PROFILE.

function ${fn} {
    param($wordToComplete, $commandAst, $cursorPosition)
    $elements = @($commandAst.CommandElements | Where-Object { $_.Extent.StartOffset -lt $cursorPosition } | ForEach-Object { $_.ToString() })
    $words = @($elements | Select-Object -Skip 1)
    if ($wordToComplete -eq '') { $words += '' } else { $words[-1] = $wordToComplete }
    # Windows PowerShell (and 7 before 7.3) drops an empty argument to a native program: pass it quoted.
    if ($PSVersionTable.PSVersion -lt [version]'7.3') { $words = @($words | ForEach-Object { if ($_ -eq '') { '""' } else { $_ } }) }
    $out = @(& $elements[0] __complete @words 2>$null)
    if ($out.Count -eq 0) { return }
    $directive = [int]($out[-1] -replace '^:', '')
    if ($directive -band ${Failed}) { return }
    $out | Select-Object -SkipLast 1 | Where-Object { $_ -ne '' } | ForEach-Object {
        $name, $description = $_ -split "\`t", 2
        if (-not $description) { $description = $name }
        [System.Management.Automation.CompletionResult]::new($name, $name, 'ParameterValue', $description)
    }
}

Register-ArgumentCompleter -Native -CommandName '${program}' -ScriptBlock \${function:${fn}}
`
}
