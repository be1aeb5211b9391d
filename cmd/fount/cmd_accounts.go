package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"golang.org/x/term"
)

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

func accountsCommand() command {
	var name, org string
	var fields stringList
	var force bool
	return command{
		name: "accounts", summary: "Connect, list or delete accounts: apps' credentials, behind the $auth of app props configured with {\"authProvisionId\": \"apn_...\"}.",
		usage:   "create <app> --name NAME [--field FIELD]... [--org ORG_ID] | list | delete <id> [--force]",
		example: "fount accounts create github --name work --field oauth_access_token < token.txt",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&name, "name", "", "the account's name (create)")
			fs.Var(&fields, "field", "a credential field to set (create; repeatable; default oauth_access_token): each value is read without echo, or one line per field from standard input")
			fs.StringVar(&org, "org", "", "connect it in this organization (create)")
			fs.BoolVar(&force, "force", false, "delete even when app props are configured with it; they then fail where they read $auth (delete)")
		},
		run: func(ctx context.Context, c *cli, fs *flag.FlagSet, args []string) error {
			if len(args) == 1 && args[0] == "list" {
				return c.listAccounts(ctx)
			}
			api, err := c.client()
			if err != nil {
				return err
			}
			switch {
			case len(args) == 2 && args[0] == "create":
				if name == "" {
					return usagef("accounts create needs --name")
				}
				if len(fields) == 0 {
					fields = stringList{"oauth_access_token"}
				}
				values, err := c.readFields(fields)
				if err != nil {
					return err
				}
				a, raw, err := api.CreateAccount(ctx, args[1], name, values, org)
				if err != nil {
					return err
				}
				c.report(raw, a.ID, fmt.Sprintf("connected %s account %s (%s), fields %s\n  configure an app prop with {\"authProvisionId\": %q}\n",
					a.App, a.ID, a.Name, strings.Join(a.FieldsSet, ", "), a.ID))
				return nil
			case len(args) == 2 && args[0] == "delete":
				if err := api.DeleteAccount(ctx, args[1], force); err != nil {
					return err
				}
				c.report(nil, "", fmt.Sprintf("deleted account %s\n", args[1]))
				return nil
			}
			return usagef("accounts takes: create <app> --name NAME | list | delete <id>")
		},
	}
}

// readFields reads each credential field's value: without echo on a
// terminal, else one line per field from standard input, never from the
// command line, where the process list would show it.
func (c *cli) readFields(names []string) (map[string]string, error) {
	out := map[string]string{}
	stdin := bufio.NewReader(c.stdin)
	for _, f := range names {
		var v string
		if isTerminal(c.stdin) {
			fmt.Fprintf(c.stderr, "%s (not echoed): ", f)
			b, err := term.ReadPassword(int(c.stdin.(*os.File).Fd()))
			fmt.Fprintln(c.stderr)
			if err != nil {
				return nil, err
			}
			v = string(b)
		} else {
			line, err := readSecret(stdin)
			if err != nil {
				return nil, err
			}
			v = line
		}
		if v == "" {
			return nil, usagef("the field %s is empty: send one line per --field on standard input", f)
		}
		out[f] = v
	}
	return out, nil
}

func (c *cli) listAccounts(ctx context.Context) error {
	api, err := c.client()
	if err != nil {
		return err
	}
	as, raw, err := api.Accounts(ctx)
	if err != nil {
		return err
	}
	ids := make([]string, 0, len(as))
	rows := make([][]string, 0, len(as))
	for _, a := range as {
		ids = append(ids, a.ID)
		rows = append(rows, []string{a.ID, a.App, a.Name, strings.Join(a.FieldsSet, ",")})
	}
	return c.output(raw, ids, []string{"ID", "APP", "NAME", "FIELDS"}, rows)
}
