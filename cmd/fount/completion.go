package main

import (
	"fmt"
	"io"
	"strings"
)

// completionScript returns a shell completion script for the subcommands.
func completionScript(shell string, names []string) (string, error) {
	words := strings.Join(names, " ")
	switch shell {
	case "bash":
		return fmt.Sprintf(`# fount completion for bash: source <(fount completion bash)
_fount() {
  local cur=${COMP_WORDS[COMP_CWORD]}
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "%s" -- "$cur"))
  elif [ "${COMP_WORDS[1]}" = list ]; then
    COMPREPLY=($(compgen -W "sources components subscriptions webhooks" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -F _fount fount
`, words), nil
	case "zsh":
		return fmt.Sprintf(`#compdef fount
# fount completion for zsh: fount completion zsh > "${fpath[1]}/_fount"
_fount() {
  if (( CURRENT == 2 )); then
    compadd -- %s
  elif [[ $words[2] == list ]]; then
    compadd -- sources components subscriptions webhooks
  else
    _files
  fi
}
compdef _fount fount
`, words), nil
	case "fish":
		var b strings.Builder
		b.WriteString("# fount completion for fish: fount completion fish > ~/.config/fish/completions/fount.fish\n")
		for _, n := range names {
			fmt.Fprintf(&b, "complete -c fount -n __fish_use_subcommand -a %s\n", n)
		}
		b.WriteString("complete -c fount -n '__fish_seen_subcommand_from list' -a 'sources components subscriptions webhooks'\n")
		return b.String(), nil
	}
	return "", fmt.Errorf("no completion for %q: choose bash, zsh or fish", shell)
}

func runCompletion(args []string, stdout, stderr io.Writer, names []string) int {
	if len(args) != 1 || args[0] == "--help" || args[0] == "-h" {
		fmt.Fprint(stderr, "Print a shell completion script.\n\nUsage:\n  fount completion bash|zsh|fish\n\nExample:\n  source <(fount completion bash)\n")
		if len(args) == 1 {
			return exitOK
		}
		return exitUsage
	}
	script, err := completionScript(args[0], names)
	if err != nil {
		fmt.Fprintf(stderr, "fount completion: %v\n", err)
		return exitUsage
	}
	fmt.Fprint(stdout, script)
	return exitOK
}
