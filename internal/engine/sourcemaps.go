package engine

import (
	"container/list"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/engine/source"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/sandbox"
)

// Source maps are parsed only when code throws, and what they hold in
// memory parsed is bounded: in all, and per account, so that one
// tenant's maps cannot take the server's memory nor push out the
// others'. A map is parsed once and shared by every source of its
// component, until it is the least recently used.
const (
	mapCacheBytes        = 64 << 20
	mapCacheAccountBytes = 16 << 20
)

// mapCache holds parsed source maps by what they belong to (a component,
// or a workflow's version of a step), least recently used first out.
type mapCache struct {
	max, perAccount int64

	mu        sync.Mutex
	total     int64
	byAccount map[string]int64
	entries   map[string]*list.Element // of *mapEntry
	lru       list.List                // front: most recently used
}

type mapEntry struct {
	key, account string
	maps         []*component.SourceMap
	bytes        int64
}

func newMapCache(max, perAccount int64) *mapCache {
	return &mapCache{max: max, perAccount: perAccount, byAccount: map[string]int64{}, entries: map[string]*list.Element{}}
}

// get returns the maps of key, parsing raws (in the order mapStack
// applies them) when they are not held. Maps over the account's share
// are used once and not kept.
func (c *mapCache) get(key, account string, raws ...string) []*component.SourceMap {
	c.mu.Lock()
	if el, ok := c.entries[key]; ok {
		c.lru.MoveToFront(el)
		maps := el.Value.(*mapEntry).maps
		c.mu.Unlock()
		return maps
	}
	c.mu.Unlock()
	maps := parseMaps(raws...) // outside the lock: a large map takes a while
	e := &mapEntry{key: key, account: account, maps: maps}
	for _, m := range maps {
		e.bytes += m.Bytes()
	}
	if e.bytes > c.perAccount {
		return maps
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok { // parsed meanwhile by another run
		return el.Value.(*mapEntry).maps
	}
	c.entries[key] = c.lru.PushFront(e)
	c.total += e.bytes
	c.byAccount[account] += e.bytes
	// The account's own maps make room first, then everyone's oldest.
	for el := c.lru.Back(); el != nil && c.byAccount[account] > c.perAccount; {
		prev := el.Prev()
		if old := el.Value.(*mapEntry); old.account == account && old != e {
			c.remove(el)
		}
		el = prev
	}
	for el := c.lru.Back(); el != nil && c.total > c.max; el = c.lru.Back() {
		c.remove(el)
	}
	return maps
}

// remove drops an entry. Called with c.mu held.
func (c *mapCache) remove(el *list.Element) {
	e := c.lru.Remove(el).(*mapEntry)
	delete(c.entries, e.key)
	c.total -= e.bytes
	if c.byAccount[e.account] -= e.bytes; c.byAccount[e.account] <= 0 {
		delete(c.byAccount, e.account)
	}
}

// size reports the bytes held in all and by account, for tests.
func (c *mapCache) size(account string) (total, ofAccount int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total, c.byAccount[account]
}

// sourceMaps are the maps from the code a source runs back to its
// author's files: the bundle's map, then the author's.
func (e *Engine) sourceMaps(l *source.Live) []*component.SourceMap {
	if l.Component.BundleMap == "" && l.Component.SourceMap == "" {
		return nil
	}
	return e.maps.get("component "+l.Component.ID, l.Source.OwnerID, l.Component.BundleMap, l.Component.SourceMap)
}

// stepMaps are sourceMaps for a step of a loaded workflow. A step run on
// its own (an action's test run) is no stored workflow's: its maps are
// parsed for the one error.
func (e *Engine) stepMaps(wf model.Workflow, step model.WorkflowStep, oneOff bool) []*component.SourceMap {
	if oneOff {
		return parseMaps(step.BundleMap, step.SourceMap)
	}
	key := fmt.Sprintf("step %s version %d at %d: %s", wf.ID, wf.Version, wf.UpdatedAt, step.Name)
	return e.maps.get(key, wf.OwnerID, step.BundleMap, step.SourceMap)
}

// parseMaps parses source maps, skipping the empty and the malformed (a
// stack then keeps the bundle's lines).
func parseMaps(raws ...string) []*component.SourceMap {
	var out []*component.SourceMap
	for _, raw := range raws {
		if raw == "" {
			continue
		}
		if m, err := component.ParseSourceMap(raw); err == nil {
			out = append(out, m)
		}
	}
	return out
}

// mapStack rewrites the stack of a script error through the maps that
// mapsOf returns (called only for a script error), so that it names the
// author's files and lines; other errors are left as they are. file is
// the name the code runs under; the bundler calls it entryFile.
func mapStack(err error, file string, mapsOf func() []*component.SourceMap) error {
	var se *sandbox.ScriptError
	if !errors.As(err, &se) {
		return err
	}
	maps := mapsOf()
	if len(maps) == 0 {
		return err
	}
	mapped := *se
	stack := se.Stack
	if file != entryFile {
		stack = strings.ReplaceAll(stack, file+":", entryFile+":")
	}
	mapped.Stack = component.MapStack(stack, entryFile, maps...)
	if file != entryFile {
		mapped.Stack = strings.ReplaceAll(mapped.Stack, entryFile+":", file+":")
	}
	return &mapped
}
