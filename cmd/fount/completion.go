package main

import (
	"flag"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
)

// listKinds are what `fount list` takes.
const listKinds = "sources components subscriptions webhooks workflows"

// completionScript returns a shell completion script for the subcommands
// and, after a subcommand, its flags (flags maps a subcommand to them).
func completionScript(shell string, names []string, flags map[string][]string) (string, error) {
	words := strings.Join(names, " ")
	cmds := make([]string, 0, len(flags))
	for c := range flags {
		cmds = append(cmds, c)
	}
	sort.Strings(cmds)
	var b strings.Builder
	switch shell {
	case "bash":
		b.WriteString("# fount completion for bash: source <(fount completion bash)\n_fount() {\n  local cur=${COMP_WORDS[COMP_CWORD]}\n")
		fmt.Fprintf(&b, "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n    COMPREPLY=($(compgen -W %q -- \"$cur\"))\n", words)
		b.WriteString("  elif [[ \"$cur\" == -* ]]; then\n    case \"${COMP_WORDS[1]}\" in\n")
		for _, c := range cmds {
			fmt.Fprintf(&b, "      %s) COMPREPLY=($(compgen -W %q -- \"$cur\")) ;;\n", c, dashed(flags[c]))
		}
		b.WriteString("    esac\n")
		fmt.Fprintf(&b, "  elif [ \"${COMP_WORDS[1]}\" = list ]; then\n    COMPREPLY=($(compgen -W %q -- \"$cur\"))\n", listKinds)
		b.WriteString("  else\n    COMPREPLY=($(compgen -f -- \"$cur\"))\n  fi\n}\ncomplete -F _fount fount\n")
	case "zsh":
		b.WriteString("#compdef fount\n# fount completion for zsh: fount completion zsh > \"${fpath[1]}/_fount\"\n_fount() {\n")
		fmt.Fprintf(&b, "  if (( CURRENT == 2 )); then\n    compadd -- %s\n", words)
		b.WriteString("  elif [[ $PREFIX == -* ]]; then\n    case $words[2] in\n")
		for _, c := range cmds {
			fmt.Fprintf(&b, "      %s) compadd -- %s ;;\n", c, dashed(flags[c]))
		}
		b.WriteString("    esac\n")
		fmt.Fprintf(&b, "  elif [[ $words[2] == list ]]; then\n    compadd -- %s\n  else\n    _files\n  fi\n}\ncompdef _fount fount\n", listKinds)
	case "fish":
		b.WriteString("# fount completion for fish: fount completion fish > ~/.config/fish/completions/fount.fish\n")
		for _, n := range names {
			fmt.Fprintf(&b, "complete -c fount -n __fish_use_subcommand -a %s\n", n)
		}
		fmt.Fprintf(&b, "complete -c fount -n '__fish_seen_subcommand_from list' -a '%s'\n", listKinds)
		for _, c := range cmds {
			for _, f := range flags[c] {
				fmt.Fprintf(&b, "complete -c fount -n '__fish_seen_subcommand_from %s' -l %s\n", c, f)
			}
		}
	default:
		return "", fmt.Errorf("no completion for %q: choose bash, zsh or fish", shell)
	}
	return b.String(), nil
}

// dashed writes flag names as the command line takes them.
func dashed(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "--" + n
	}
	return strings.Join(out, " ")
}

// flagLine finds a flag's name in a flag set's printed defaults.
var flagLine = regexp.MustCompile(`(?m)^  -([a-z][a-z0-9-]*)`)

// commandFlags lists the flags of serve and of every client command, by
// command, as their --help prints them.
func commandFlags() map[string][]string {
	out := map[string][]string{}
	var help strings.Builder
	_, _ = parseServeFlags([]string{"-h"}, environment{stderr: &help, lookupEnv: func(string) (string, bool) { return "", false }})
	for _, m := range flagLine.FindAllStringSubmatch(help.String(), -1) {
		out["serve"] = append(out["serve"], m[1])
	}
	for _, cmd := range clientCommands() {
		c := &cli{stderr: io.Discard}
		fs := c.newFlagSet(cmd)
		fs.VisitAll(func(f *flag.Flag) { out[cmd.name] = append(out[cmd.name], f.Name) })
	}
	return out
}

func runCompletion(args []string, stdout, stderr io.Writer, names []string) int {
	if len(args) != 1 || args[0] == "--help" || args[0] == "-h" {
		fmt.Fprint(stderr, "Print a shell completion script.\n\nUsage:\n  fount completion bash|zsh|fish\n\nExample:\n  source <(fount completion bash)\n")
		if len(args) == 1 {
			return exitOK
		}
		return exitUsage
	}
	script, err := completionScript(args[0], names, commandFlags())
	if err != nil {
		fmt.Fprintf(stderr, "fount completion: %v\n", err)
		return exitUsage
	}
	fmt.Fprint(stdout, script)
	return exitOK
}
