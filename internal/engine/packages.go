package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"regexp"
	"strings"

	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/engine/batch"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/sandbox"
)

// Packages resolves the npm packages code imports and bundles them into
// it (cmd wires the bundle package behind it).
type Packages interface {
	// Bundle returns code with its packages bundled in, and their lock,
	// keeping the versions of lock wherever they still fit. It returns
	// an empty Bundled when code imports no package, and a *CodeError
	// when the code or a package it imports cannot be had; Downloaded
	// is set in either case.
	Bundle(ctx context.Context, code string, lock []model.Package) (Bundled, error)
}

// Bundled is code with its npm packages and Node built-ins bundled in.
type Bundled struct {
	Code     string          // "" when there was nothing to bundle
	Map      string          // the bundle's source map, to the code as given and the packages' files
	Packages []model.Package // the lock
	// Downloaded is the bytes of tarballs fetched from the registry for
	// it, counted against the deploying account.
	Downloaded int64
}

// SaveOptions shape how SaveComponent treats the npm packages of code.
type SaveOptions struct {
	// UpdatePackages resolves them afresh, to the newest matching
	// versions, instead of keeping the versions code was bundled with
	// when the owner saved it before.
	UpdatePackages bool
	// SourceMap maps the code to its author's files, when the client
	// bundled them (a source map v3); it is checked and stored.
	SourceMap string
}

// bareImport finds what may be an import of a package or of a Node
// built-in (a bare specifier after from, import or require), or a use of
// the Buffer global, which the bundler provides. It only decides whether
// the bundler runs at all, so a false match costs a bundling and nothing
// else.
var bareImport = regexp.MustCompile(`(?:\bfrom|\bimport|\brequire)\s*\(?\s*["'][^"'./]|\bBuffer\b`)

// packageLoadFailures are the sandbox's words for an import it could not
// satisfy, the sign that code needs its packages bundled.
var packageLoadFailures = []string{"could not load module '", "Cannot find module '"}

// describeWithPackages describes code, bundling the npm packages it
// imports first when it imports any. The sandbox sees the code as given
// first: QuickJS parses it with a stack limit, so code nested deeper than
// a parser can bear is refused there, and never reaches esbuild, whose
// parser has none (a Go stack overflow would end the process). lock and
// opts are as for Packages.Bundle. The tarballs it downloads count
// against account's usage.
func (e *Engine) describeWithPackages(ctx context.Context, account, code string, lock []model.Package, describe func(code string) (*component.Metadata, error)) (*component.Metadata, Bundled, error) {
	meta, err := describe(code)
	var se *sandbox.ScriptError
	needs := err == nil && bareImport.MatchString(code)
	if errors.As(err, &se) {
		for _, f := range packageLoadFailures {
			needs = needs || strings.Contains(se.Message, f)
		}
	}
	if !needs || e.cfg.Packages == nil {
		return meta, Bundled{}, err
	}
	bundled, berr := e.cfg.Packages.Bundle(ctx, code, lock)
	if uerr := e.queues.AddNpmBytes(context.WithoutCancel(ctx), account, batch.Day(e.clock.Now()), bundled.Downloaded); uerr != nil {
		e.log.Warn("npm usage not counted", "account", account, "bytes", bundled.Downloaded, "err", uerr)
	}
	if berr != nil || bundled.Code == "" {
		if berr == nil {
			return meta, Bundled{}, err // no package after all: the load error stands
		}
		return nil, Bundled{}, berr
	}
	meta, err = describe(bundled.Code)
	return meta, bundled, err
}

// savedLock is the lock owner's component of the same code was bundled
// with, unless opts ask to update it.
func (e *Engine) savedLock(ctx context.Context, owner, code, codeURL string, opts SaveOptions) ([]model.Package, error) {
	if opts.UpdatePackages {
		return nil, nil
	}
	sum := sha256.Sum256([]byte(code))
	prev, err := e.store.ComponentByCode(ctx, owner, hex.EncodeToString(sum[:]), codeURL)
	switch {
	case err == nil:
		return prev.Packages, nil
	case errors.Is(err, model.ErrNotFound):
		return nil, nil
	}
	return nil, err
}

func isCodeError(err error) bool {
	var ce *CodeError
	return errors.As(err, &ce)
}

// entryFile is the name the sandbox gives a component's code, in stacks.
const entryFile = "component.mjs"
