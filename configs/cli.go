package configs

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"time"
)

// The exit statuses every command of the project shares.
const (
	ExitOK    = 0 // done, or the usage was asked for (-h, -help, --help)
	ExitError = 1 // the work failed: a file could not be read or written, an engine crashed, ...
	ExitUsage = 2 // the command line is wrong: an unknown flag, a bad value, a bad config file
)

// UsageError is a mistake in a command line: an unknown flag, a value a
// flag cannot take, a setting out of range, a config file that cannot be
// used. Its message is one line, naming the flag and the value.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }

// Unwrap returns the error the mistake was found as.
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef returns a UsageError whose message is formatted as fmt.Errorf
// does, e.g. Usagef("-games %d: must be positive", n).
func Usagef(format string, args ...any) error {
	return &UsageError{fmt.Errorf(format, args...)}
}

// AsUsage marks err, when it is not nil, as a mistake in the command line.
func AsUsage(err error) error {
	var u *UsageError
	if err == nil || errors.As(err, &u) || errors.Is(err, flag.ErrHelp) {
		return err
	}
	return &UsageError{err}
}

// ParseFlags parses args with fs, which must have been made with
// flag.ContinueOnError, and prints nothing but the usage when asked for it.
// -h, -help and --help print fs.Usage on fs.Output() (see PrintUsage) and
// return flag.ErrHelp: a command sets the output to
// its standard output so that `cmd -h | less` works. Any other error is a
// *UsageError whose message is one line such as
//
//	-nodes -1: not a whole number (0 or more)
//	-bogus: no such flag
//
// and nothing is printed: Exit prints it with a hint to run -h.
func ParseFlags(fs *flag.FlagSet, args []string) error {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		PrintUsage(fs)
		return flag.ErrHelp
	}
	return &UsageError{errors.New(flagMessage(fs, err.Error()))}
}

// PrintUsage prints fs.Usage on fs.Output(), or when fs has no Usage
// function a usage line and the flags' defaults.
func PrintUsage(fs *flag.FlagSet) {
	if fs.Usage != nil {
		fs.Usage()
		return
	}
	fmt.Fprintf(fs.Output(), "usage: %s [flags]\n\n", fs.Name())
	fs.PrintDefaults()
}

// The messages of package flag's errors, rewritten by flagMessage.
var (
	reInvalid   = regexp.MustCompile(`^invalid value "(.*)" for flag -(\S+): (.*)$`)
	reBool      = regexp.MustCompile(`^invalid boolean value "(.*)" for -(\S+): (.*)$`)
	reUndefined = regexp.MustCompile(`^flag provided but not defined: -(\S+)$`)
	reNoArg     = regexp.MustCompile(`^flag needs an argument: -(\S+)$`)
	reSyntax    = regexp.MustCompile(`^bad flag syntax: (.*)$`)
)

// flagMessage rewrites one of package flag's error messages to name the
// flag first and say what its value must be.
func flagMessage(fs *flag.FlagSet, msg string) string {
	if m := reInvalid.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("-%s %s: %s", m[2], m[1], valueReason(fs.Lookup(m[2]), m[3]))
	}
	if m := reBool.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("-%s=%s: not true or false", m[2], m[1])
	}
	if m := reUndefined.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("-%s: no such flag", m[1])
	}
	if m := reNoArg.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("-%s: needs a value", m[1])
	}
	if m := reSyntax.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("%s: not a flag", m[1])
	}
	return msg
}

// valueReason says what a flag's value must be when package flag's
// reason is its generic "parse error" or "value out of range".
func valueReason(f *flag.Flag, reason string) string {
	if f == nil || (reason != "parse error" && reason != "value out of range") {
		return reason
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return reason
	}
	switch g.Get().(type) {
	case int, int64:
		return "not a whole number"
	case uint, uint64:
		return "not a whole number (0 or more)"
	case float64:
		return "not a number"
	case time.Duration:
		return `not a duration such as "500ms" or "1m30s"`
	}
	if t := reflect.TypeOf(g.Get()); t != nil {
		return fmt.Sprintf("not a valid %v", t)
	}
	return reason
}

// Exit reports how command name ended, on stderr, and returns its exit
// status: ExitOK for nil and for flag.ErrHelp (the usage is printed
// already); ExitUsage for a *UsageError, printed as
//
//	name: MESSAGE
//	run 'name -h' for usage
//
// and ExitError, printed as "name: MESSAGE", for any other error.
func Exit(stderr io.Writer, name string, err error) int {
	var u *UsageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return ExitOK
	case errors.As(err, &u):
		fmt.Fprintf(stderr, "%s: %s\nrun '%s -h' for usage\n", name, message(name, err), name)
		return ExitUsage
	}
	fmt.Fprintf(stderr, "%s: %s\n", name, message(name, err))
	return ExitError
}

// message is err's message on one line (errors.Join's lines joined with
// "; "), without the prefix "name: " that Exit adds itself.
func message(name string, err error) string {
	msg := strings.TrimSpace(err.Error())
	for strings.HasPrefix(msg, name+": ") {
		msg = strings.TrimPrefix(msg, name+": ")
	}
	return strings.ReplaceAll(msg, "\n", "; ")
}

// OutputFile checks, before any work starts, that the file path can be
// written: its directory must exist and take new files. A file's directory
// is not made for it, so that a mistyped path fails at once rather than
// leaving a new directory tree behind. The error names the path first
// ("out/x.parquet: directory out does not exist (create it first)"), for
// the caller to prefix with the flag. An existing directory is no file to
// write: naming one is a *UsageError.
func OutputFile(path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return Usagef("%s is a directory: name a file", path)
	}
	if err := writableDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// OutputDir makes, before any work starts, the output directory path that
// the user named, with the missing directories above it, and checks that it
// takes new files. Its error names the path first, as OutputFile's does.
func OutputDir(path string) error {
	if err := os.MkdirAll(path, 0o755); err != nil {
		return fmt.Errorf("%s: cannot create the directory: %w", path, err)
	}
	if err := writableDir(path); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// writableDir reports whether files can be created in dir, which must
// exist.
func writableDir(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("directory %s does not exist (create it first)", dir)
	case err != nil:
		return err
	case !st.IsDir():
		return fmt.Errorf("%s is not a directory", dir)
	}
	f, err := os.CreateTemp(dir, ".write-check-*")
	if err != nil {
		return fmt.Errorf("directory %s takes no new files: %w", dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// ParseCommand reads the command line args of a command that takes no
// positional arguments and whose settings are *dst, already holding their
// defaults: it binds each setting and -config FILE (by default defaultFile)
// to a flag set named name, parses args and lays the flags over the config
// file over the defaults. For -h it prints "usage: name [-config FILE]
// [flags]", about and the flags on stdout and returns flag.ErrHelp; a
// mistake in the command line or the config file is a *UsageError.
func ParseCommand(name, about, defaultFile string, dst any, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stdout)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: %s [-config FILE] [flags]\n\n%s\nFlags override the config file, whose keys are the flags' names.\n\n", name, about)
		fs.PrintDefaults()
	}
	b, err := Bind(fs, dst, defaultFile)
	if err != nil {
		return err
	}
	if err := ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return Usagef("unexpected arguments %q", fs.Args())
	}
	return b.Apply()
}
