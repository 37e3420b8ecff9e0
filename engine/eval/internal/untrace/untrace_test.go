package untrace

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
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
	for _, want := range []string{
		"func (e *untraced) term(n int) int {", "n--", "if n == 0 {", "for i := 0; i < n; i++ {", "DO NOT EDIT",
		"//line eval.go:4\n\n// term is documented.\nfunc (e *untraced) term(n int) int {\n//line eval.go:10\n\tfor i",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, unwanted := range []string{"!= nil", "*e.tr", "valueReceiver", "helper"} {
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

func TestTracingStatementsMustStandOnTheirOwnLines(t *testing.T) {
	_, err := generate(t, "package eval\n\ntype evaluator struct{ tr *int }\n\nfunc (e *evaluator) f(n int) {\n\tn++; if e.tr != nil {\n\t\t*e.tr = n\n\t}\n}\n")
	if err == nil || !strings.Contains(err.Error(), "lines of its own") {
		t.Errorf("err = %v, want one about a statement sharing its line", err)
	}
}

// TestLineDirectivesMapTheCopyToItsSource checks, for the committed copy,
// that every identifier of every method sits, by the //line directives, on
// the line of eval.go or evaluator.go that it was copied from: the file
// and line a panic or a profile names is the source's.
func TestLineDirectivesMapTheCopyToItsSource(t *testing.T) {
	dir := filepath.Join("..", "..")
	fset := token.NewFileSet()
	type ident struct {
		file string
		line int
		name string
	}
	// idents lists the identifiers under n, by their (adjusted) position,
	// less the receiver's type and those inside skipped statements.
	idents := func(fd *ast.FuncDecl, skip []ast.Stmt) []ident {
		var out []ident
		recvType := fd.Recv.List[0].Type.(*ast.StarExpr).X
		ast.Inspect(fd, func(n ast.Node) bool {
			for _, s := range skip {
				if n == s {
					return false
				}
			}
			if id, ok := n.(*ast.Ident); ok && id != recvType {
				p := fset.Position(id.Pos())
				out = append(out, ident{p.Filename, p.Line, id.Name})
			}
			return true
		})
		return out
	}
	want := map[string][]ident{}
	for _, name := range Sources {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil {
				continue
			}
			if st, ok := fd.Recv.List[0].Type.(*ast.StarExpr); !ok || st.X.(*ast.Ident).Name != fromType {
				continue
			}
			var traced []ast.Stmt
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if is, ok := n.(*ast.IfStmt); ok && isTracerTest(is.Cond, fd.Recv.List[0].Names[0].Name) {
					traced = append(traced, is)
				}
				return true
			})
			want[fd.Name.Name] = idents(fd, traced)
		}
	}
	f, err := parser.ParseFile(fset, filepath.Join(dir, Output), nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	methods := 0
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		methods++
		got := idents(fd, nil)
		if w := want[fd.Name.Name]; !slices.Equal(got, w) {
			t.Errorf("method %s: identifiers map to\n%v\nwant\n%v", fd.Name.Name, got, w)
		}
	}
	if methods != len(want) {
		t.Errorf("%d methods in %s, %d in the sources", methods, Output, len(want))
	}
}
