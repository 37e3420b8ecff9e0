package configs

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseFlagsSaysWhatWasWrongInOneLine(t *testing.T) {
	newFS := func(out io.Writer) *flag.FlagSet {
		fs := flag.NewFlagSet("cmd", flag.ContinueOnError)
		fs.SetOutput(out)
		s := defaults()
		if _, err := Bind(fs, &s, ""); err != nil {
			t.Fatal(err)
		}
		var d Duration
		fs.Var(&d, "wait", "a duration")
		return fs
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-seed", "-1"}, "-seed -1: not a whole number (0 or more)"},
		{[]string{"-games", "ten"}, "-games ten: not a whole number"},
		{[]string{"-games", "99999999999999999999"}, "-games 99999999999999999999: not a whole number"},
		{[]string{"-share", "half"}, "-share half: not a number"},
		{[]string{"-on=perhaps"}, "-on=perhaps: not true or false"},
		{[]string{"-wait", "soon"}, `-wait soon: time: invalid duration "soon"`},
		{[]string{"-nope"}, "-nope: no such flag"},
		{[]string{"-games"}, "-games: needs a value"},
		{[]string{"---games"}, "---games: not a flag"},
	} {
		var out bytes.Buffer
		err := ParseFlags(newFS(&out), c.args)
		var u *UsageError
		if !errors.As(err, &u) || err.Error() != c.want {
			t.Errorf("%v: error %v (%T), want usage error %q", c.args, err, err, c.want)
		}
		if out.Len() != 0 {
			t.Errorf("%v: printed %q", c.args, out.String())
		}
	}
	for _, h := range []string{"-h", "-help", "--help"} {
		var out bytes.Buffer
		fs := newFS(&out)
		if err := ParseFlags(fs, []string{"-games", "3", h}); !errors.Is(err, flag.ErrHelp) {
			t.Errorf("%s: error %v, want flag.ErrHelp", h, err)
		}
		if !strings.HasPrefix(out.String(), "Usage of cmd:\n") || !strings.Contains(out.String(), "-games int") {
			t.Errorf("%s: usage %q", h, out.String())
		}
		if fs.Output() != &out {
			t.Errorf("%s: the flag set's output is not restored", h)
		}
	}
	// A command's own usage function is the one printed.
	var out bytes.Buffer
	fs := newFS(&out)
	fs.Usage = func() { fmt.Fprintln(fs.Output(), "usage: cmd THINGS") }
	if err := ParseFlags(fs, []string{"-h"}); !errors.Is(err, flag.ErrHelp) || out.String() != "usage: cmd THINGS\n" {
		t.Errorf("custom usage: %v, %q", err, out.String())
	}
	if err := ParseFlags(newFS(io.Discard), []string{"-games", "3", "rest"}); err != nil {
		t.Errorf("good line: %v", err)
	}
}

func TestApplyErrorsAreUsageErrors(t *testing.T) {
	path := writeFile(t, "{\n  \"games\": 1,\n  \"gmaes\": 2\n}\n")
	fs := flag.NewFlagSet("cmd", flag.ContinueOnError)
	s := defaults()
	b, err := Bind(fs, &s, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := fs.Parse([]string{"-config", path}); err != nil {
		t.Fatal(err)
	}
	err = b.Apply()
	var u *UsageError
	if !errors.As(err, &u) || !strings.Contains(err.Error(), "line 3: unknown field \"gmaes\"") {
		t.Errorf("error %v (%T)", err, err)
	}
}

func TestExitStatusAndMessage(t *testing.T) {
	for _, c := range []struct {
		err  error
		code int
		text string
	}{
		{nil, ExitOK, ""},
		{flag.ErrHelp, ExitOK, ""},
		{fmt.Errorf("wrapped: %w", flag.ErrHelp), ExitOK, ""},
		{Usagef("-games %d: must be positive", 0), ExitUsage, "cmd: -games 0: must be positive\nrun 'cmd -h' for usage\n"},
		{fmt.Errorf("reading: %w", Usagef("bad")), ExitUsage, "cmd: reading: bad\nrun 'cmd -h' for usage\n"},
		{AsUsage(errors.New("cmd: -x 1: too small")), ExitUsage, "cmd: -x 1: too small\nrun 'cmd -h' for usage\n"},
		{errors.New("cmd: disk full"), ExitError, "cmd: disk full\n"},
		{errors.Join(errors.New("one"), errors.New("two")), ExitError, "cmd: one; two\n"},
	} {
		var w bytes.Buffer
		if code := Exit(&w, "cmd", c.err); code != c.code || w.String() != c.text {
			t.Errorf("%v: exit %d, %q; want %d, %q", c.err, code, w.String(), c.code, c.text)
		}
	}
	if AsUsage(nil) != nil || !errors.Is(AsUsage(flag.ErrHelp), flag.ErrHelp) {
		t.Error("AsUsage changes nil or flag.ErrHelp")
	}
}

func TestOutputPathsAreCheckedWithoutMakingAFilesDirectory(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := OutputFile(filepath.Join(dir, "x.parquet")); err != nil {
		t.Errorf("file in an existing directory: %v", err)
	}
	missing := filepath.Join(dir, "missing", "x.parquet")
	if err := OutputFile(missing); err == nil || err.Error() != missing+": directory "+filepath.Dir(missing)+" does not exist (create it first)" {
		t.Errorf("file in a missing directory: %v", err)
	}
	if err := OutputFile(filepath.Join(file, "x")); err == nil || !strings.Contains(err.Error(), file+" is not a directory") {
		t.Errorf("file under a file: %v", err)
	}
	if _, err := os.Stat(filepath.Dir(missing)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("OutputFile made %s", filepath.Dir(missing))
	}
	parts := filepath.Join(dir, "new", "parts")
	if err := OutputDir(parts); err != nil {
		t.Errorf("new directory: %v", err)
	}
	if st, err := os.Stat(parts); err != nil || !st.IsDir() {
		t.Errorf("OutputDir did not make %s: %v", parts, err)
	}
	if err := OutputDir(filepath.Join(file, "parts")); err == nil || !strings.Contains(err.Error(), "cannot create the directory") {
		t.Errorf("directory under a file: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*", ".write-check-*")); len(left) > 0 {
		t.Errorf("check files left: %v", left)
	}
}
