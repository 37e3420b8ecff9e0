package configs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNotAnInputKnowsAFileByIdentityNotSpelling(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "x.parquet")
	if err := os.WriteFile(in, []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	link := filepath.Join(sub, "link.parquet")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(sub, "hard.parquet")
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, c := range []struct{ out, in string }{
		{in, in},
		{"./x.parquet", in},
		{"sub/../x.parquet", "x.parquet"},
		{link, in},
		{in, link},
		{hard, in},
		{filepath.Join(dir, "new.epd"), dir}, // a file of an input directory
		{"sub/../new.epd", "."},              // the same, spelled otherwise
		{filepath.Join(dir, "all.parquet"), dir + "/*.parquet"}, // would match an input glob
		{"x.parquet", dir + "/*.parquet"},                       // matches it already
	} {
		err := NotAnInput(c.out, c.in)
		var u *UsageError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), c.out+" ") || !strings.HasSuffix(err.Error(), "choose another output") {
			t.Errorf("NotAnInput(%q, %q) = %v, want a usage error naming %s", c.out, c.in, err, c.out)
		}
	}
	for _, c := range []struct{ out, in string }{
		{filepath.Join(dir, "other.parquet"), in},
		{filepath.Join(sub, "new.epd"), dir}, // a subdirectory is not read
		{filepath.Join(dir, "new.epd"), dir + "/*.parquet"},
		{filepath.Join(dir, "out.epd"), filepath.Join(dir, "missing.parquet")}, // the reader says it is missing
		{filepath.Join(dir, "out.epd"), ""},
	} {
		if err := NotAnInput(c.out, c.in); err != nil {
			t.Errorf("NotAnInput(%q, %q) = %v, want nil", c.out, c.in, err)
		}
	}
}

func TestNotAnInputDirRefusesADirectoryHoldingAnInput(t *testing.T) {
	dir := t.TempDir()
	npy := filepath.Join(dir, "npy")
	deep := filepath.Join(npy, "a", "b")
	os.MkdirAll(deep, 0o755)
	in := filepath.Join(deep, "x.parquet")
	os.WriteFile(in, []byte("data"), 0o644)
	link := filepath.Join(dir, "link")
	os.Symlink(npy, link)
	for _, c := range []struct{ out, in string }{
		{npy, in},
		{npy, npy},
		{link, in},
		{npy + "/a/..", filepath.Join(link, "a")},
		{dir, npy + "/a/*/*.parquet"},
	} {
		var u *UsageError
		if err := NotAnInputDir(c.out, c.in); !errors.As(err, &u) || !strings.HasPrefix(err.Error(), c.out+" ") {
			t.Errorf("NotAnInputDir(%q, %q) = %v, want a usage error naming %s", c.out, c.in, err, c.out)
		}
	}
	other := filepath.Join(dir, "other")
	for _, out := range []string{other, deep + "/new", filepath.Join(dir, "np")} {
		if err := NotAnInputDir(out, in); err != nil {
			t.Errorf("NotAnInputDir(%q, %q) = %v, want nil", out, in, err)
		}
	}
}

func TestNewOutputDirMakesNothingAndMakeDirsUndoes(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	target := filepath.Join(dir, "a", "b", "npy")
	if err := NewOutputDir(target); err != nil {
		t.Errorf("NewOutputDir(%s): %v", target, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "a")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("NewOutputDir made %s", filepath.Join(dir, "a"))
	}
	if err := NewOutputDir(filepath.Join(file, "npy")); err == nil || !strings.Contains(err.Error(), file+" is not a directory") {
		t.Errorf("a directory under a file: %v", err)
	}
	undo, err := MakeDirs(target)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(target); err != nil || !st.IsDir() {
		t.Fatalf("MakeDirs did not make %s: %v", target, err)
	}
	undo()
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("after undo %s holds %v, want only the file", dir, entries)
	}
	if err := OutputFile(dir); err == nil || !strings.Contains(err.Error(), dir+" is a directory") {
		t.Errorf("OutputFile on a directory: %v", err)
	}
}
