package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"chessforge/datasets"
	"chessforge/datasets/export"
	"chessforge/datasets/fixture"
	"chessforge/internal/outlock"
)

// snapshot returns the contents of every file under root, by path.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.Mode().IsRegular() {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			files[path] = string(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// sameFiles reports how after differs from before: "" when not at all.
func sameFiles(before, after map[string]string) string {
	var diff []string
	for path, data := range before {
		if got, ok := after[path]; !ok {
			diff = append(diff, path+" is gone")
		} else if got != data {
			diff = append(diff, path+" changed")
		}
	}
	for path := range after {
		if _, ok := before[path]; !ok {
			diff = append(diff, path+" is new")
		}
	}
	return strings.Join(diff, "; ")
}

// TestAnOutputThatIsAnInputIsRefused names an input as the output of every
// command that writes, in every spelling: the same path, ./path, d/../path,
// a symbolic link, a hard link, a file of an input directory. Each exits
// with status 2 and leaves every file as it was.
func TestAnOutputThatIsAnInputIsRefused(t *testing.T) {
	root := t.TempDir()
	data := filepath.Join(root, "data")
	os.Mkdir(data, 0o755)
	ds := filepath.Join(data, "ds.parquet")
	if _, err := fixture.Write(ds, fixture.Options{Games: 2, Seed: 1, MaxPlies: 30}); err != nil {
		t.Fatal(err)
	}
	bp := filepath.Join(root, "ds.binpack")
	if code, _, errw := runCmd("export", "-format", "binpack", ds, "-out", bp, "-quiet"); code != 0 {
		t.Fatalf("export binpack: %s", errw)
	}
	sym := filepath.Join(root, "sym.parquet")
	if err := os.Symlink(ds, sym); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(root, "hard.parquet")
	if err := os.Link(ds, hard); err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	spellings := map[string]string{
		"same":      ds,
		"dot":       "./data/ds.parquet",
		"dotdot":    "data/../data/ds.parquet",
		"symlink":   sym,
		"hard link": hard,
	}
	var cases [][]string
	for name, out := range spellings {
		for _, format := range []string{"epd", "plain", "binpack"} {
			cases = append(cases, []string{name, "export", "-format", format, ds, "-out", out})
		}
		cases = append(cases, []string{name, "merge", ds, "-out", out}, []string{name, "merge", bp, ds, "-out", out})
	}
	cases = append(cases,
		[]string{"in the input directory", "export", "-format", "epd", data, "-out", "data/x.epd"},
		[]string{"in the input directory", "merge", data, "-out", filepath.Join(data, "all.parquet")},
		[]string{"matching the input glob", "merge", "data/*.parquet", "-out", "data/all.parquet"},
		[]string{"in the input directory", "split", data, "-out", data},
		[]string{"the input", "split", filepath.Join(data, "train.parquet"), "-out", data}, // renamed below
		[]string{"the input", "import", bp, "-out", bp},
		[]string{"the input, relative", "import", "-format", "binpack", bp, "-out", "ds.binpack"},
		[]string{"the input directory", "export", "-format", "npy", data, "-out", data},
		[]string{"above the input", "export", "-format", "npy", ds, "-out", root},
		[]string{"above the input", "export", "-format", "npy", ds, "-out", "data/.."},
	)
	train := filepath.Join(data, "train.parquet")
	for _, c := range cases {
		if c[1] == "split" && c[2] == train {
			os.Rename(ds, train)
		}
		before := snapshot(t, root)
		code, _, errw := runCmd(c[1:]...)
		if code != 2 || !strings.Contains(errw, "choose another output") {
			t.Errorf("%s: %v: exit %d, stderr %q; want 2 and a refusal", c[0], c[1:], code, errw)
		}
		if diff := sameFiles(before, snapshot(t, root)); diff != "" {
			t.Errorf("%s: %v: %s", c[0], c[1:], diff)
		}
		if c[1] == "split" && c[2] == train {
			os.Rename(train, ds)
		}
	}
}

// TestExportChecksItsSettingsBeforeReading: an unknown format and an
// output file that is a directory are refused before any row is read or
// anything is made, as the input that does not exist shows.
func TestExportChecksItsSettingsBeforeReading(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.parquet")
	code, _, errw := runCmd("export", "-format", "xyz", missing, "-out", filepath.Join(dir, "x"))
	if code != 2 || !strings.Contains(errw, `-format "xyz": want epd, npy, plain or binpack`) {
		t.Errorf("-format xyz: exit %d, stderr %q; want 2 and the format named", code, errw)
	}
	src, _ := twoShards(t)
	for _, format := range []string{"epd", "plain", "binpack"} {
		code, _, errw := runCmd("export", "-format", format, src, "-out", dir)
		if code != 2 || !strings.Contains(errw, "-out "+dir+" is a directory") || strings.Contains(errw, "exporting") {
			t.Errorf("-format %s -out DIR: exit %d, stderr %q; want 2, the directory named, no progress", format, code, errw)
		}
	}
	// A failed NumPy export makes no directory.
	out := filepath.Join(dir, "new", "npy")
	if code, _, _ := runCmd("export", "-format", "npy", missing, "-out", out); code != 1 {
		t.Errorf("export of a missing input: exit %d, want 1", code)
	}
	bad := filepath.Join(dir, "bad.parquet")
	os.WriteFile(bad, []byte("not parquet"), 0o644)
	if code, _, _ := runCmd("export", "-format", "npy", bad, "-out", out, "-quiet"); code != 1 {
		t.Errorf("export of a damaged input: exit %d, want 1", code)
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); !os.IsNotExist(err) {
		t.Errorf("failed NumPy exports left %s", filepath.Join(dir, "new"))
	}
	if code, _, _ := runCmd("split", missing, "-out", filepath.Join(dir, "split")); code != 1 {
		t.Errorf("split of a missing input: exit %d, want 1", code)
	}
	if _, err := os.Stat(filepath.Join(dir, "split")); !os.IsNotExist(err) {
		t.Errorf("a failed split left %s", filepath.Join(dir, "split"))
	}
}

// TestASecondWriterIsRefused holds the output's lock, as a running export
// would, and runs each command that writes to it: each is refused at once,
// naming this process, and writes nothing.
func TestASecondWriterIsRefused(t *testing.T) {
	src, _ := twoShards(t)
	dir := t.TempDir()
	bp := filepath.Join(dir, "a.binpack")
	if code, _, errw := runCmd("export", "-format", "binpack", src, "-out", bp, "-quiet"); code != 0 {
		t.Fatalf("export binpack: %s", errw)
	}
	out := filepath.Join(dir, "out")
	for _, args := range [][]string{
		{"export", "-format", "epd", src, "-out", out},
		{"export", "-format", "npy", src, "-out", out},
		{"export", "-format", "binpack", src, "-out", out},
		{"merge", src, "-out", out},
		{"split", src, "-out", out},
		{"import", "-format", "binpack", bp, "-out", out},
	} {
		l, err := outlock.Acquire(out)
		if err != nil {
			t.Fatal(err)
		}
		code, _, errw := runCmd(args...)
		l.Release()
		want := out + " is being written by process " + strconv.Itoa(os.Getpid())
		if code != 1 || !strings.Contains(errw, want) {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", args, code, errw, want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%v wrote %s while another process held it", args, out)
			os.RemoveAll(out)
		}
		if code, _, errw := runCmd(append(args, "-quiet")...); code != 0 {
			t.Errorf("%v once the lock is released: exit %d: %s", args, code, errw)
		}
		if _, err := os.Stat(outlock.Path(out)); !os.IsNotExist(err) {
			t.Errorf("%v left its lock file", args)
		}
		os.RemoveAll(out)
	}
}

// TestAFailedNPYReexportKeepsTheExportThatWasThere exports, then exports
// again over it from a missing, a damaged and a half-damaged input: the
// first export stays byte for byte and still loads, and nothing is left
// beside it.
func TestAFailedNPYReexportKeepsTheExportThatWasThere(t *testing.T) {
	src, _ := twoShards(t)
	root := t.TempDir()
	out := filepath.Join(root, "npy")
	if code, _, errw := runCmd("export", "-format", "npy", "-shard-rows", "40", src, "-out", out, "-quiet"); code != 0 {
		t.Fatalf("export: %s", errw)
	}
	before := snapshot(t, root)
	junk := filepath.Join(t.TempDir(), "junk.parquet")
	os.WriteFile(junk, []byte("not parquet"), 0o644)
	// A second file whose late row has planes the export cannot hold: the
	// export fails after writing shards.
	half := filepath.Join(t.TempDir(), "half")
	os.Mkdir(half, 0o755)
	if _, err := fixture.Write(filepath.Join(half, "a.parquet"), fixture.Options{Games: 2, Seed: 1, MaxPlies: 40}); err != nil {
		t.Fatal(err)
	}
	if _, err := fixture.Write(filepath.Join(half, "b.parquet"), fixture.Options{Games: 2, Seed: 2, FirstID: 100, MaxPlies: 40,
		Mutate: func(i int64, r *datasets.Row) {
			if i == 50 {
				r.Planes[3*64+5] = 0.5
			}
		}}); err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{filepath.Join(root, "missing.parquet"), junk, half} {
		code, _, errw := runCmd("export", "-format", "npy", "-shard-rows", "20", in, "-out", out, "-quiet")
		if code != 1 {
			t.Errorf("export of %s: exit %d, want 1: %s", in, code, errw)
		}
		if diff := sameFiles(before, snapshot(t, root)); diff != "" {
			t.Errorf("export of %s: %s", in, diff)
		}
		if entries, _ := os.ReadDir(root); len(entries) != 1 {
			t.Errorf("export of %s left %v beside the export", in, entries)
		}
		if _, err := export.ReadManifest(out); err != nil {
			t.Errorf("after the export of %s: %v", in, err)
		}
	}
	// A good export replaces it whole: no shard of the old one is left.
	if code, _, errw := runCmd("export", "-format", "npy", "-shard-rows", "1000", src, "-out", out, "-quiet"); code != 0 {
		t.Fatalf("export: %s", errw)
	}
	if old, _ := filepath.Glob(filepath.Join(out, "part-00001-*")); len(old) > 0 {
		t.Errorf("the old export's shards are left in the new one: %v", old)
	}
	// A directory holding other files is no export to replace.
	notes := filepath.Join(root, "notes")
	os.Mkdir(notes, 0o755)
	os.WriteFile(filepath.Join(notes, "todo.txt"), []byte("keep"), 0o644)
	code, _, errw := runCmd("export", "-format", "npy", src, "-out", notes, "-quiet")
	if code != 2 || !strings.Contains(errw, "todo.txt") {
		t.Errorf("export over a directory of other files: exit %d, stderr %q; want 2 naming todo.txt", code, errw)
	}
	if data, _ := os.ReadFile(filepath.Join(notes, "todo.txt")); !bytes.Equal(data, []byte("keep")) {
		t.Error("the directory's file was lost")
	}
}
