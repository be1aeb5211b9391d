package engine

import (
	"context"
	"fmt"
	"regexp"
	"strings"
)

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// maxSlug bounds a name slug's length.
const maxSlug = 100

// slugify makes a name slug: lower-case letters and digits joined by
// hyphens ("source" when nothing is left).
func slugify(name string) string {
	s := strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(name), "-"), "-")
	if s == "" {
		s = "source"
	}
	if len(s) > maxSlug {
		s = strings.TrimRight(s[:maxSlug], "-")
	}
	return s
}

// sourceName picks a source's name and slug. A given name keeps its
// slug's uniqueness to the owner (a *NameTakenError otherwise). Without
// one, an update (keepSlug set) keeps the current slug and returns an
// empty name (keep the name too), and a deploy takes the component's name
// slug, made unique with -2, -3...
func (e *Engine) sourceName(ctx context.Context, owner, name, componentName, keepSlug string) (string, string, error) {
	if strings.TrimSpace(name) != "" {
		slug := slugify(name)
		if slug == keepSlug {
			return name, slug, nil
		}
		taken, err := e.store.SlugTaken(ctx, owner, slug)
		if err != nil {
			return "", "", err
		}
		if taken {
			return "", "", &NameTakenError{Slug: slug}
		}
		return name, slug, nil
	}
	if keepSlug != "" {
		return "", keepSlug, nil
	}
	base := slugify(componentName)
	for i := 1; i < 10_000; i++ {
		slug := base
		if i > 1 {
			slug = fmt.Sprintf("%s-%d", base, i)
		}
		taken, err := e.store.SlugTaken(ctx, owner, slug)
		if err != nil {
			return "", "", err
		}
		if !taken {
			return slug, slug, nil
		}
	}
	return "", "", &NameTakenError{Slug: base}
}
