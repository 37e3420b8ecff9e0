package untrace

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCommittedCopyIsCurrent(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("..", "..", Output))
	if err != nil {
		t.Fatal(err)
	}
	got, err := Generate(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: run go generate ./engine/eval/ (%d bytes generated, %d committed)", Output, len(got), len(want))
	}
}

// generate runs Generate on one source file holding src as eval.go and an
// empty evaluator.go.
func generate(t *testing.T, src string) (string, error) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{"eval.go": src, "evaluator.go": "package eval\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, err := Generate(dir)
	return string(out), err
}

func TestTracingStatementsAreRemovedAndTheRestKept(t *testing.T) {
	out, err := generate(t, `package eval

type evaluator struct{ tr *int }

// term is documented.
func (e *evaluator) term(n int) int {
	if e.tr != nil {
		*e.tr += n
	}
	for i := 0; i < n; i++ {
		if e.tr != nil {
			*e.tr++
		}
		switch {
		case n > 2:
			if e.tr != nil {
				*e.tr--
			}
			n--
		}
	}
	if n == 0 {
		n++
	}
	return n
}

func (x evaluator) valueReceiver() {}

func helper(e *evaluator) {}
`)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"func (e *untraced) term(n int) int {", "n--", "if n == 0 {", "for i := 0; i < n; i++ {", "DO NOT EDIT"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, unwanted := range []string{"!= nil", "*e.tr", "valueReceiver", "helper", "documented"} {
		if strings.Contains(out, unwanted) {
			t.Errorf("output has %q:\n%s", unwanted, out)
		}
	}
}

func TestTracerUsedOutsideATracingStatementIsAnError(t *testing.T) {
	for name, body := range map[string]string{
		"bare use":    "\tif e.tr == nil {\n\t\treturn\n\t}\n\t*e.tr = 1\n",
		"else branch": "\tif e.tr != nil {\n\t\t*e.tr = 1\n\t} else {\n\t\treturn\n\t}\n",
		"init":        "\tif x := 1; e.tr != nil {\n\t\t*e.tr = x\n\t}\n",
		"traced type": "\tvar other evaluator\n\t_ = other\n",
	} {
		_, err := generate(t, "package eval\n\ntype evaluator struct{ tr *int }\n\nfunc (e *evaluator) f() {\n"+body+"}\n")
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestNoMethodsIsAnError(t *testing.T) {
	if _, err := generate(t, "package eval\n\nfunc f() {}\n"); err == nil {
		t.Error("no error for sources without *evaluator methods")
	}
}
