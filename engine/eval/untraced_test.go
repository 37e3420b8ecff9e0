package eval

import (
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// entry returns the file and line that the runtime gives for the entry of
// function f.
func entry(f any) (string, int) {
	pc := reflect.ValueOf(f).Pointer()
	return runtime.FuncForPC(pc).FileLine(pc)
}

// panicSite runs f, which must panic, and returns the file and line of the
// innermost frame of function fn in the panic's stack.
func panicSite(t *testing.T, fn string, f func()) (file string, line int) {
	t.Helper()
	func() {
		defer func() {
			if recover() == nil {
				t.Fatalf("%s did not panic", fn)
			}
			pcs := make([]uintptr, 64)
			frames := runtime.CallersFrames(pcs[:runtime.Callers(1, pcs)])
			for {
				fr, more := frames.Next()
				if strings.HasSuffix(fr.Function, fn) && file == "" {
					file, line = fr.File, fr.Line
				}
				if !more {
					break
				}
			}
		}()
		f()
	}()
	if file == "" {
		t.Fatalf("no frame of %s in the panic's stack", fn)
	}
	return file, line
}

// TestUntracedCodeNamesItsSource checks that the generated untraced methods
// name, at run time, the file and line of the traced methods they were
// copied from (the //line directives of eval_untraced_gen.go): what
// profiles and panics show is eval.go, not the copy. The compiler keeps a
// directive's file name as written, so the copy names "eval.go" where the
// source names its full path.
func TestUntracedCodeNamesItsSource(t *testing.T) {
	for name, pair := range map[string][2]any{
		"evaluate":    {(*evaluator).evaluate, (*untraced).evaluate},
		"pieces":      {(*evaluator).pieces, (*untraced).pieces},
		"kingShelter": {(*evaluator).kingShelter, (*untraced).kingShelter},
		"scaleFor":    {(*evaluator).scaleFor, (*untraced).scaleFor},
		"probe":       {(*evaluator).probe, (*untraced).probe}, // evaluator.go
	} {
		tf, tl := entry(pair[0])
		uf, ul := entry(pair[1])
		if filepath.Base(uf) != filepath.Base(tf) || ul != tl || strings.HasSuffix(tf, "_gen.go") {
			t.Errorf("%s: untraced copy starts at %s:%d, traced source at %s:%d", name, uf, ul, tf, tl)
		}
	}
	// A nil position panics in the first test of the material.
	tf, tl := panicSite(t, ".(*evaluator).evaluate", func() { new(evaluator).evaluate(nil, nil) })
	uf, ul := panicSite(t, ".(*untraced).evaluate", func() { new(untraced).evaluate(nil, nil) })
	if filepath.Base(tf) != "eval.go" || filepath.Base(uf) != "eval.go" || ul != tl {
		t.Errorf("the untraced evaluation panics at %s:%d, the traced one at %s:%d; want the same line of eval.go", uf, ul, tf, tl)
	}
}
