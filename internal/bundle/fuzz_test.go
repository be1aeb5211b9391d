package bundle

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseImport: any specifier either parses into a valid package name
// or is refused; it never panics.
func FuzzParseImport(f *testing.F) {
	for _, s := range []string{"dayjs", "lodash@^4.17.0/get", "@pipedream/platform", "@a/b@1/c/d", "@", "a@", "A", "x/../y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		imp, err := ParseImport(spec)
		if err == nil && !validName.MatchString(imp.Name) {
			t.Fatalf("ParseImport(%q) accepted name %q", spec, imp.Name)
		}
	})
}

// FuzzExtract: a tarball from a registry is hostile input; whatever it
// holds, nothing is written outside the folder it unpacks into.
func FuzzExtract(f *testing.F) {
	f.Add(tgz(map[string]string{"package/index.js": "x", "package/lib/a.js": "y"}))
	f.Add(tgz(map[string]string{"package/../../escape.js": "x"}))
	f.Add(tgz(map[string]string{"/abs.js": "x", "package/./b.js": "y"}))
	f.Add([]byte("not gzip"))
	f.Fuzz(func(t *testing.T, data []byte) {
		parent := t.TempDir()
		root := filepath.Join(parent, "root")
		_, _ = extract(root, data)
		err := filepath.Walk(parent, func(path string, info os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			if path != parent && path != root && !strings.HasPrefix(path, root+string(filepath.Separator)) {
				t.Fatalf("extract wrote %s, outside %s", path, root)
			}
			if info.Mode()&os.ModeSymlink != 0 {
				t.Fatalf("extract made a link: %s", path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

func tgz(files map[string]string) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, body := range files {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg})
		tw.Write([]byte(body))
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}
