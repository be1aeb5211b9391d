package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/term"

	"github.com/fount-dev/fount/client"
)

// usageError is a mistake on the command line: exit code 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// cli is the environment of a client command: its output, options and
// the API client they resolve to.
type cli struct {
	name           string // the command's
	env            environment
	stdout, stderr io.Writer
	stdin          io.Reader
	url, key       string
	profile        string
	json, quiet    bool
}

// command is one client subcommand.
type command struct {
	name    string
	summary string
	usage   string // arguments, after the name
	example string
	flags   func(fs *flag.FlagSet)
	run     func(ctx context.Context, c *cli, fs *flag.FlagSet, args []string) error
}

// newFlagSet registers the options every client command shares.
func (c *cli) newFlagSet(cmd command) *flag.FlagSet {
	fs := flag.NewFlagSet(cmd.name, flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	fs.StringVar(&c.url, "url", "", "server URL (FOUNT_URL, or the profile's)")
	fs.StringVar(&c.key, "key", "", "API key (FOUNT_API_KEY, or the profile's)")
	fs.StringVar(&c.profile, "profile", "", "config profile (FOUNT_PROFILE; default \"default\")")
	fs.BoolVar(&c.json, "json", false, "print the API's JSON")
	fs.BoolVar(&c.quiet, "quiet", false, "print ids only")
	if cmd.flags != nil {
		cmd.flags(fs)
	}
	fs.Usage = func() {
		fmt.Fprintf(c.stderr, "%s\n\nUsage:\n  fount %s %s\n\nExample:\n  %s\n\nFlags:\n", cmd.summary, cmd.name, cmd.usage, cmd.example)
		fs.PrintDefaults()
	}
	return fs
}

// parseArgs parses flags wherever they stand among the arguments (so that
// `fount deploy file.mjs --prop a=b` works) and returns the positionals.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if rest[0] == "--" {
			positional = append(positional, rest[1:]...)
			break
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
	return positional, nil
}

// runClient runs a client command and maps its error to an exit code and
// a message that says what to do.
func runClient(ctx context.Context, cmd command, args []string, env environment) int {
	stdout, stderr := env.stdout, env.stderr
	c := &cli{env: env, stdout: stdout, stderr: stderr, stdin: env.stdin, name: cmd.name}
	fs := c.newFlagSet(cmd)
	positional, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		return exitUsage
	}
	err = cmd.run(ctx, c, fs, positional)
	if err == nil {
		return exitOK
	}
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "fount %s: %s\nRun 'fount %s --help' for usage.\n", cmd.name, ue.msg, cmd.name)
		return exitUsage
	}
	if errors.Is(err, context.Canceled) {
		return exitOK // Ctrl-C ends --follow and dev
	}
	fmt.Fprintf(stderr, "fount %s: %s\n", cmd.name, explain(err, c))
	return exitError
}

// explain turns an error into a sentence with the next step in it.
func explain(err error, c *cli) string {
	var apiErr *client.APIError
	switch {
	case errors.Is(err, client.ErrUnreachable):
		return fmt.Sprintf("cannot reach the fount server at %s: is `fount serve` running there? Pass --url or set FOUNT_URL.", c.url)
	case errors.As(err, &apiErr) && apiErr.Status == 401:
		return "the server refused the API key: run `fount login`, or pass --key or set FOUNT_API_KEY."
	case errors.As(err, &apiErr):
		return apiErr.Error()
	}
	return err.Error()
}

// configFile is where `fount login` keeps profiles: fount/config.json in
// $XDG_CONFIG_HOME, or in the system's user config dir.
func configFile(env environment) (string, error) {
	dir := env.getenv("XDG_CONFIG_HOME")
	if dir == "" {
		var err error
		if dir, err = os.UserConfigDir(); err != nil {
			return "", fmt.Errorf("find the config dir: %w", err)
		}
	}
	return filepath.Join(dir, "fount", "config.json"), nil
}

// profileConfig is one server's URL and key.
type profileConfig struct {
	URL string `json:"url"`
	Key string `json:"key"`
}

type config struct {
	Profiles map[string]profileConfig `json:"profiles"`
}

func loadConfig(env environment) (config, error) {
	cfg := config{Profiles: map[string]profileConfig{}}
	path, err := configFile(env)
	if err != nil {
		return cfg, err
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return cfg, nil
	}
	if err != nil {
		return cfg, err
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		return cfg, fmt.Errorf("%s is not valid JSON: %w", path, err)
	}
	if cfg.Profiles == nil {
		cfg.Profiles = map[string]profileConfig{}
	}
	return cfg, nil
}

func saveConfig(env environment, cfg config) (string, error) {
	path, err := configFile(env)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", err
	}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.WriteFile(path, append(b, '\n'), 0o600); err != nil {
		return "", err
	}
	return path, os.Chmod(path, 0o600) // an existing file keeps its mode otherwise
}

func (c *cli) profileName() string {
	if c.profile != "" {
		return c.profile
	}
	return c.env.or("FOUNT_PROFILE", "default")
}

// client resolves the server and key: flags, then the environment, then
// the profile, then the local default server.
func (c *cli) client() (*client.Client, error) {
	cfg, err := loadConfig(c.env)
	if err != nil {
		return nil, err
	}
	name := c.profileName()
	p, ok := cfg.Profiles[name]
	if !ok && (c.profile != "" || c.env.getenv("FOUNT_PROFILE") != "") && c.name != "login" {
		var names []string
		for n := range cfg.Profiles {
			names = append(names, n)
		}
		sort.Strings(names)
		known := "none yet; `fount login --profile NAME` saves one"
		if len(names) > 0 {
			known = strings.Join(names, ", ")
		}
		return nil, usagef("no profile named %q (profiles: %s)", name, known)
	}
	c.url = firstNonEmpty(c.url, c.env.getenv("FOUNT_URL"), p.URL, "http://127.0.0.1:8080")
	if !strings.Contains(c.url, "://") {
		c.url = "http://" + c.url // 127.0.0.1:8080, as serve prints its address
	}
	if u, err := url.Parse(c.url); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, usagef("the server URL %q is not a URL like http://127.0.0.1:8080", c.url)
	}
	c.key = firstNonEmpty(c.key, c.env.getenv("FOUNT_API_KEY"), p.Key)
	if c.key == "" {
		return nil, errors.New("no API key: run `fount login`, or pass --key or set FOUNT_API_KEY (a new server writes its owner's key to <data-dir>/owner.key)")
	}
	return client.New(c.url, c.key), nil
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// table prints aligned columns; the header is bold on a colour terminal.
func (c *cli) table(header []string, rows [][]string) {
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	h := strings.Join(header, "\t")
	if c.colour(c.stdout) {
		h = "\x1b[1m" + h + "\x1b[0m"
	}
	fmt.Fprintln(tw, h)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	_ = tw.Flush()
}

// isTerminal reports whether w is a terminal.
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// colour is on only on a terminal, and never with NO_COLOR set.
func (c *cli) colour(w io.Writer) bool {
	_, noColor := c.env.lookupEnv("NO_COLOR")
	return !noColor && isTerminal(w)
}

// spinner shows msg with a spinner on stderr, if it is a terminal and the
// work takes over a second; the returned stop clears it.
func (c *cli) spinner(msg string) (stop func()) {
	if !isTerminal(c.stderr) {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		select {
		case <-done:
			return
		case <-time.After(time.Second):
		}
		frames := `|/-\`
		for i := 0; ; i++ {
			fmt.Fprintf(c.stderr, "\r%c %s", frames[i%len(frames)], msg)
			select {
			case <-done:
				fmt.Fprintf(c.stderr, "\r%s\r", strings.Repeat(" ", len(msg)+2))
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return func() { close(done); <-finished }
}

// report prints a command's result in the chosen form: the API's JSON
// (or, when the API answered nothing, {"ok": true, "id": id}), the id
// (nothing when there is none to print), or the human sentence.
func (c *cli) report(raw []byte, id, human string) {
	switch {
	case c.json:
		if raw == nil { // the API answered nothing (204): say what was done to what
			raw, _ = json.Marshal(map[string]any{"ok": true, "id": id})
		}
		c.printJSON(raw)
	case c.quiet:
		if id != "" {
			fmt.Fprintln(c.stdout, id)
		}
	default:
		fmt.Fprint(c.stdout, human)
	}
}

// printJSON writes raw API JSON, one document per line.
func (c *cli) printJSON(raw []byte) {
	fmt.Fprintln(c.stdout, strings.TrimSpace(string(raw)))
}

func when(unix int64) string {
	if unix == 0 {
		return "-"
	}
	return time.Unix(unix, 0).Local().Format("2006-01-02 15:04")
}
