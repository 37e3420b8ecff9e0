package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryCommandTakesAConfigFile gives each command a config file that
// sets one of its flags, then the file with that flag also on the command
// line: the file's value holds where no flag is given, and the flag's
// value overrides it.
func TestEveryCommandTakesAConfigFile(t *testing.T) {
	dir, _ := twoShards(t)
	tmp := t.TempDir()
	plain := filepath.Join(tmp, "d.plain")
	if code, _, errw := runCmd("export", "-format", "plain", dir, "-out", plain, "-quiet"); code != 0 {
		t.Fatalf("export plain: exit %d: %s", code, errw)
	}
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
	// The progress bar shows on standard error unless -quiet.
	quiet := func(_, errw string) bool { return !strings.Contains(errw, "100%") }
	noisy := func(_, errw string) bool { return strings.Contains(errw, "100%") }
	// head prints a header line, the rows, then the board picture.
	headRows := func(n int) func(stdout, _ string) bool {
		return func(stdout, _ string) bool {
			table, _, _ := strings.Cut(stdout, "\n\n")
			return strings.Count(table, "\n") == n+1
		}
	}
	// outTo says the output went to a (the config's -out), not to b.
	outTo := func(a, b string) func(_, _ string) bool {
		return func(_, _ string) bool { return exists(a) && !exists(b) }
	}
	cases := []struct {
		name     string
		args     []string // the command line without the config's flag
		config   string   // the config file
		override []string // the flag that overrides it
		file     func(stdout, stderr string) bool
		flag     func(stdout, stderr string) bool
	}{
		{"info", []string{"info", dir}, `{"quiet": true}`, []string{"-quiet=false"}, quiet, noisy},
		{"stats", []string{"stats", dir}, `{"quiet": true}`, []string{"-quiet=false"}, quiet, noisy},
		{"head", []string{"head", "-board", "-1", dir}, `{"n": 3}`, []string{"-n", "5"}, headRows(3), headRows(5)},
		{"verify", []string{"verify", dir}, `{"quiet": true}`, []string{"-quiet=false"}, quiet, noisy},
		{"split", []string{"split", dir, "-quiet"}, `{"out": "` + filepath.Join(tmp, "split-a") + `"}`,
			[]string{"-out", filepath.Join(tmp, "split-b")},
			outTo(filepath.Join(tmp, "split-a", "train.parquet"), filepath.Join(tmp, "split-b")),
			outTo(filepath.Join(tmp, "split-b", "train.parquet"), filepath.Join(tmp, "nowhere"))},
		{"merge", []string{"merge", filepath.Join(dir, "part-0.parquet"), filepath.Join(dir, "part-1.parquet"), "-quiet"}, `{"out": "` + filepath.Join(tmp, "merge-a.parquet") + `", "dedup": true}`,
			[]string{"-out", filepath.Join(tmp, "merge-b.parquet")},
			outTo(filepath.Join(tmp, "merge-a.parquet"), filepath.Join(tmp, "merge-b.parquet")),
			outTo(filepath.Join(tmp, "merge-b.parquet"), filepath.Join(tmp, "nowhere"))},
		{"export", []string{"export", "-format", "epd", dir, "-quiet"}, `{"out": "` + filepath.Join(tmp, "a.epd") + `"}`,
			[]string{"-out", filepath.Join(tmp, "b.epd")},
			outTo(filepath.Join(tmp, "a.epd"), filepath.Join(tmp, "b.epd")),
			outTo(filepath.Join(tmp, "b.epd"), filepath.Join(tmp, "nowhere"))},
		{"import", []string{"import", plain, "-quiet"}, `{"out": "` + filepath.Join(tmp, "import-a.parquet") + `"}`,
			[]string{"-out", filepath.Join(tmp, "import-b.parquet")},
			outTo(filepath.Join(tmp, "import-a.parquet"), filepath.Join(tmp, "import-b.parquet")),
			outTo(filepath.Join(tmp, "import-b.parquet"), filepath.Join(tmp, "nowhere"))},
	}
	for _, c := range cases {
		config := filepath.Join(tmp, c.name+".json")
		if err := os.WriteFile(config, []byte(c.config), 0o644); err != nil {
			t.Fatal(err)
		}
		args := append(c.args[:len(c.args):len(c.args)], "-config", config)
		code, stdout, errw := runCmd(args...)
		if code != 0 || !c.file(stdout, errw) {
			t.Errorf("%s with %s: exit %d, the config file's setting did not hold:\nstdout %s\nstderr %s", c.name, c.config, code, stdout, errw)
		}
		code, stdout, errw = runCmd(append(args, c.override...)...)
		if code != 0 || !c.flag(stdout, errw) {
			t.Errorf("%s with %s and %v: exit %d, the flag did not override the file:\nstdout %s\nstderr %s", c.name, c.config, c.override, code, stdout, errw)
		}
		// A key that is no flag of the command is a usage error, said in
		// one line (then the hint to run -h).
		os.WriteFile(config, []byte(`{"no-such-flag": 1}`), 0o644)
		code, _, errw = runCmd(args...)
		if first, _, _ := strings.Cut(errw, "\n"); code != 2 || !strings.HasPrefix(first, "dataset "+c.name+": config ") || !strings.Contains(first, `unknown field "no-such-flag"`) {
			t.Errorf("%s with an unknown key: exit %d, stderr %q; want 2 and a line naming the key", c.name, code, errw)
		}
	}
}
