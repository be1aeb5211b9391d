package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strconv"
	"time"

	"github.com/fount-dev/fount/internal/ids"

	"github.com/fount-dev/fount/client"
)

func dataStoresCommand() command {
	var org string
	var ttl time.Duration
	return command{
		name:    "data-stores",
		summary: "Create, list and delete data stores, and read and write their keys: the key-value stores that data_store props reach.",
		usage:   "create NAME [--org ORG_ID] | list | delete STORE | keys STORE | get STORE KEY | set STORE KEY JSON [--ttl DURATION] | del STORE KEY | clear STORE",
		example: `fount data-stores set cache greeting '"hello"' --ttl 24h`,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&org, "org", "", "create it in this organization (create)")
			fs.DurationVar(&ttl, "ttl", 0, "how long the key lives (set; default: for ever)")
		},
		run: func(ctx context.Context, c *cli, fs *flag.FlagSet, args []string) error {
			api, err := c.client()
			if err != nil {
				return err
			}
			verb := ""
			if len(args) > 0 {
				verb = args[0]
			}
			want := map[string]int{"create": 2, "list": 1, "delete": 2, "keys": 2, "get": 3, "set": 4, "del": 3, "clear": 2}[verb]
			if want == 0 || len(args) != want {
				return usagef("data-stores takes: create NAME | list | delete STORE | keys STORE | get STORE KEY | set STORE KEY JSON | del STORE KEY | clear STORE")
			}
			switch verb {
			case "create":
				ds, raw, err := api.CreateDataStore(ctx, args[1], org)
				if err != nil {
					return err
				}
				c.report(raw, ds.ID, fmt.Sprintf("created data store %s (%s)\n  configure a data_store prop with %q\n", ds.Name, ds.ID, ds.Name))
				return nil
			case "list":
				return c.listDataStores(ctx, api)
			}
			id, err := dataStoreID(ctx, api, args[1])
			if err != nil {
				return err
			}
			switch verb {
			case "delete":
				if err := api.DeleteDataStore(ctx, id); err != nil {
					return err
				}
				c.report(nil, "", fmt.Sprintf("deleted data store %s\n", args[1]))
			case "keys":
				return c.listDataRecords(ctx, api, id)
			case "get":
				rec, raw, err := api.DataRecord(ctx, id, args[2])
				if err != nil {
					return err
				}
				if c.json {
					c.printJSON(raw)
					return nil
				}
				fmt.Fprintln(c.stdout, string(rec.Value))
			case "set":
				value := json.RawMessage(args[3])
				if !json.Valid(value) {
					return usagef("the value %s is not JSON: quote a string as '\"text\"'", strconv.Quote(args[3]))
				}
				_, raw, err := api.SetDataRecord(ctx, id, args[2], value, ttl)
				if err != nil {
					return err
				}
				c.report(raw, "", fmt.Sprintf("set %s in %s\n", args[2], args[1]))
			case "del":
				if err := api.DeleteDataRecord(ctx, id, args[2]); err != nil {
					return err
				}
				c.report(nil, "", fmt.Sprintf("removed %s from %s\n", args[2], args[1]))
			case "clear":
				if err := api.ClearDataRecords(ctx, id); err != nil {
					return err
				}
				c.report(nil, "", fmt.Sprintf("cleared data store %s\n", args[1]))
			}
			return nil
		},
	}
}

// dataStoreID is the id of the caller's data store named ref, or ref
// itself when it is an id.
func dataStoreID(ctx context.Context, api *client.Client, ref string) (string, error) {
	if ids.Is(ref, ids.DataStore) {
		return ref, nil
	}
	stores, _, err := api.DataStores(ctx)
	if err != nil {
		return "", err
	}
	for _, ds := range stores {
		if ds.Name == ref {
			return ds.ID, nil
		}
	}
	return "", usagef("you have no data store named %s (fount data-stores list)", ref)
}

func (c *cli) listDataStores(ctx context.Context, api *client.Client) error {
	stores, raw, err := api.DataStores(ctx)
	if err != nil {
		return err
	}
	storeIDs := make([]string, 0, len(stores))
	rows := make([][]string, 0, len(stores))
	for _, ds := range stores {
		storeIDs = append(storeIDs, ds.ID)
		rows = append(rows, []string{ds.ID, ds.Name, fmt.Sprintf("%d/%d", ds.Keys, ds.MaxKeys), fmt.Sprintf("%d/%d", ds.Bytes, ds.MaxBytes)})
	}
	return c.output(raw, storeIDs, []string{"ID", "NAME", "KEYS", "BYTES"}, rows)
}

func (c *cli) listDataRecords(ctx context.Context, api *client.Client, id string) error {
	recs, raw, err := api.DataRecords(ctx, id)
	if err != nil {
		return err
	}
	keys := make([]string, 0, len(recs))
	rows := make([][]string, 0, len(recs))
	for _, r := range recs {
		expires := "never"
		if r.ExpiresAtMs > 0 {
			expires = time.UnixMilli(r.ExpiresAtMs).UTC().Format(time.RFC3339)
		}
		keys = append(keys, r.Key)
		rows = append(rows, []string{r.Key, truncateCell(string(r.Value), 60), expires})
	}
	return c.output(raw, keys, []string{"KEY", "VALUE", "EXPIRES"}, rows)
}

// truncateCell shortens s to n runes for a table cell.
func truncateCell(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
