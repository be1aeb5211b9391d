package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/fount-dev/fount/internal/server"
)

func backupCommand() command {
	return command{
		name: "backup", summary: "Write a backup of the server (its store, consistent while it runs, and its secret key) to a file: the owner only.",
		usage: "<file>", example: "fount backup fount-backup.tar",
		run: func(ctx context.Context, c *cli, _ *flag.FlagSet, args []string) error {
			if len(args) != 1 {
				return usagef("backup takes the file to write")
			}
			api, err := c.client()
			if err != nil {
				return err
			}
			f, err := os.OpenFile(args[0], os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
			if err != nil {
				return usagef("cannot write %s: %v (backup writes a new file)", args[0], err)
			}
			stop := c.spinner("backing up")
			n, err := api.Backup(ctx, f)
			stop()
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				os.Remove(args[0])
				return err
			}
			fmt.Fprintf(c.stderr, "warning: %s\n", server.BackupWarning)
			c.report(nil, args[0], fmt.Sprintf("wrote %s (%d bytes): the store and its secret key; restore it with fount restore %s --data-dir DIR\n", args[0], n, args[0]))
			return nil
		},
	}
}

// runRestore is `fount restore FILE --data-dir DIR`: it works on files,
// with no server.
func runRestore(args []string, env environment) int {
	fs := flag.NewFlagSet("restore", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	dataDir := fs.String("data-dir", "", "the new, empty data dir to restore into")
	fs.Usage = func() {
		fmt.Fprint(env.stderr, "Usage: fount restore <backup file> --data-dir DIR\n\nExample:\n  fount restore fount-backup.tar --data-dir ./fount-data-restored\n\nFlags:\n")
		fs.PrintDefaults()
	}
	var file string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		file, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if file == "" && fs.NArg() == 1 {
		file = fs.Arg(0)
	}
	if file == "" || *dataDir == "" {
		fmt.Fprintln(env.stderr, "fount restore: give the backup file and --data-dir DIR")
		return exitUsage
	}
	f, err := os.Open(file)
	if err != nil {
		fmt.Fprintf(env.stderr, "fount restore: %v\n", err)
		return exitUsage
	}
	defer f.Close()
	m, err := server.Restore(f, *dataDir)
	if err != nil {
		fmt.Fprintf(env.stderr, "fount restore: %v\n", err)
		return exitError
	}
	fmt.Fprintf(env.stdout, "restored a backup of %s (fount %s) into %s: %s\n", m.Created, m.Version, *dataDir, strings.Join(m.Contains, ", "))
	if m.Warning != "" {
		fmt.Fprintf(env.stderr, "warning: %s\n", m.Warning)
	}
	return exitOK
}
