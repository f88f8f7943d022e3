package dynamoseq_test

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite api/*.txt from the packages' exported declarations")

// maxDocLines bounds the doc comment of an exported declaration: the
// contract (guarantee, cost, concurrency, a link); the mechanism belongs in
// docs/.
const maxDocLines = 20

// privateName matches what a public doc must not point at: a file of the
// package, or a package users cannot import.
var privateName = regexp.MustCompile(`\b[a-z_]+\.go\b|\binternal/|\(see (turns|combine|settle)\b|\b(combine|settle|turns)\.[A-Z]`)

// TestAPI lists the exported API of each package, one line per exported
// identifier with its signature, and compares the listing with
// api/<package>.txt, as the Go project keeps api/go1.*.txt: a change to
// the surface shows in review as a change to that file. Rewrite the files
// with go test -run TestAPI -update . after a deliberate change.
func TestAPI(t *testing.T) {
	for _, p := range []struct{ dir, file string }{
		{".", "api/dynamoseq.txt"},
		{"dynamoseqtest", "api/dynamoseqtest.txt"},
	} {
		t.Run(p.file, func(t *testing.T) {
			lines, long := apiListing(t, p.dir)
			got := strings.Join(lines, "\n") + "\n"
			if *update {
				if err := os.WriteFile(p.file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(p.file)
			if err != nil {
				t.Fatalf("%v; write it with go test -run TestAPI -update .", err)
			}
			if diff := lineDiff(strings.Split(strings.TrimSuffix(string(want), "\n"), "\n"), lines); diff != "" {
				t.Errorf("the exported API of %s differs from %s (- listed, + in the code); if the change is meant, run go test -run TestAPI -update .\n%s", p.dir, p.file, diff)
			}
			if p.dir == "." && len(long) > 0 {
				t.Errorf("doc comments over %d lines, or naming private files or packages (move the mechanism to docs/):\n%s", maxDocLines, strings.Join(long, "\n"))
			}
		})
	}
}

// apiListing returns the sorted API lines of the package in dir, and the
// exported declarations whose doc comment is over maxDocLines lines.
func apiListing(t *testing.T, dir string) (lines, long []string) {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	l := &lister{fset: fset}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		if l.pkg == "" {
			l.pkg = f.Name.Name
		}
		l.doc("package "+f.Name.Name, f.Doc)
		for _, d := range f.Decls {
			l.decl(d)
		}
	}
	slices.Sort(l.lines)
	slices.Sort(l.long)
	return slices.Compact(l.lines), l.long
}

// lister collects the API lines of one package.
type lister struct {
	fset  *token.FileSet
	pkg   string
	lines []string
	long  []string
}

func (l *lister) add(format string, args ...any) {
	l.lines = append(l.lines, "pkg "+l.pkg+", "+fmt.Sprintf(format, args...))
}

// doc notes the declaration name when its doc comment is too long.
func (l *lister) doc(name string, g *ast.CommentGroup) {
	if g == nil {
		return
	}
	if m := privateName.FindString(g.Text()); m != "" {
		l.long = append(l.long, fmt.Sprintf("%s: names %q, private to the package", name, m))
	}
	if strings.HasPrefix(name, "package ") {
		return // the overview may be long
	}
	if n := len(strings.Split(strings.TrimSpace(g.Text()), "\n")); n > maxDocLines {
		l.long = append(l.long, fmt.Sprintf("%s: %d lines", name, n))
	}
}

// expr prints an expression as gofmt would.
func (l *lister) expr(x ast.Node) string {
	var b bytes.Buffer
	if err := printer.Fprint(&b, l.fset, x); err != nil {
		panic(err)
	}
	return b.String()
}

func (l *lister) decl(d ast.Decl) {
	switch d := d.(type) {
	case *ast.FuncDecl:
		l.funcDecl(d)
	case *ast.GenDecl:
		var typ ast.Expr // the type an untyped const of a group inherits
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				if s.Name.IsExported() {
					l.doc(s.Name.Name, cmpDoc(s.Doc, d.Doc))
					l.typeSpec(s)
				}
			case *ast.ValueSpec:
				if s.Type != nil || len(s.Values) > 0 {
					typ = s.Type
				}
				l.valueSpec(d.Tok, s, typ)
			}
		}
	}
}

func cmpDoc(a, b *ast.CommentGroup) *ast.CommentGroup {
	if a != nil {
		return a
	}
	return b
}

func (l *lister) funcDecl(d *ast.FuncDecl) {
	if !d.Name.IsExported() {
		return
	}
	sig := l.signature(d.Type)
	if d.Recv == nil {
		l.doc(d.Name.Name, d.Doc)
		tparams := ""
		if d.Type.TypeParams != nil {
			tparams = "[" + l.fields(d.Type.TypeParams, true) + "]"
		}
		l.add("func %s%s%s", d.Name.Name, tparams, sig)
		return
	}
	recv := d.Recv.List[0].Type
	base := recv
	if s, ok := base.(*ast.StarExpr); ok {
		base = s.X
	}
	if ix, ok := base.(*ast.IndexExpr); ok {
		base = ix.X
	}
	if id, ok := base.(*ast.Ident); ok && id.IsExported() {
		l.doc(id.Name+"."+d.Name.Name, d.Doc)
		l.add("method (%s) %s%s", l.expr(recv), d.Name.Name, sig)
	}
}

// signature prints a function type's parameters and results without their
// names, as api/go1.*.txt does.
func (l *lister) signature(f *ast.FuncType) string {
	s := "(" + l.fields(f.Params, false) + ")"
	if f.Results == nil || len(f.Results.List) == 0 {
		return s
	}
	res := l.fields(f.Results, false)
	if len(f.Results.List) == 1 && len(f.Results.List[0].Names) <= 1 {
		return s + " " + res
	}
	return s + " (" + res + ")"
}

// fields prints a field list, one entry per name, with the names only when
// named is set (type parameters).
func (l *lister) fields(fl *ast.FieldList, named bool) string {
	var parts []string
	for _, f := range fl.List {
		typ := l.expr(f.Type)
		n := max(len(f.Names), 1)
		for i := range n {
			if named && i < len(f.Names) {
				parts = append(parts, f.Names[i].Name+" "+typ)
			} else {
				parts = append(parts, typ)
			}
		}
	}
	return strings.Join(parts, ", ")
}

func (l *lister) typeSpec(s *ast.TypeSpec) {
	name := s.Name.Name
	if s.TypeParams != nil {
		name += "[" + l.fields(s.TypeParams, true) + "]"
	}
	if s.Assign.IsValid() {
		l.add("type %s = %s", name, l.expr(s.Type))
		return
	}
	switch t := s.Type.(type) {
	case *ast.StructType:
		l.add("type %s struct", name)
		for _, f := range t.Fields.List {
			if len(f.Names) == 0 {
				l.add("type %s struct, embedded %s", name, l.expr(f.Type))
			}
			for _, n := range f.Names {
				if n.IsExported() {
					l.add("type %s struct, %s %s", name, n.Name, l.expr(f.Type))
				}
			}
		}
	case *ast.InterfaceType:
		l.add("type %s interface { %s }", name, l.methodNames(t))
		for _, m := range t.Methods.List {
			for _, n := range m.Names {
				if n.IsExported() {
					l.add("type %s interface, %s%s", name, n.Name, l.signature(m.Type.(*ast.FuncType)))
				}
			}
			if len(m.Names) == 0 {
				l.add("type %s interface, embedded %s", name, l.expr(m.Type))
			}
		}
	default:
		l.add("type %s %s", name, l.expr(s.Type))
	}
}

// methodNames lists an interface's methods, unexported ones included: an
// unexported method makes it impossible to implement outside the package.
func (l *lister) methodNames(t *ast.InterfaceType) string {
	var names []string
	for _, m := range t.Methods.List {
		for _, n := range m.Names {
			names = append(names, n.Name)
		}
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

func (l *lister) valueSpec(tok token.Token, s *ast.ValueSpec, typ ast.Expr) {
	kind := "var"
	if tok == token.CONST {
		kind = "const"
	}
	for i, n := range s.Names {
		if !n.IsExported() {
			continue
		}
		switch {
		case typ != nil:
			l.add("%s %s %s", kind, n.Name, l.expr(typ))
		case i < len(s.Values) && isErrorsNew(s.Values[i]):
			l.add("%s %s error", kind, n.Name)
		case i < len(s.Values):
			l.add("%s %s = %s", kind, n.Name, l.expr(s.Values[i]))
		default:
			l.add("%s %s", kind, n.Name)
		}
	}
}

func isErrorsNew(x ast.Expr) bool {
	call, ok := x.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "errors" && sel.Sel.Name == "New"
}

// lineDiff returns the lines only in want (-) and only in got (+), in
// order, or "" when the two are equal.
func lineDiff(want, got []string) string {
	w, g := map[string]bool{}, map[string]bool{}
	for _, s := range want {
		w[s] = true
	}
	for _, s := range got {
		g[s] = true
	}
	var b strings.Builder
	for _, s := range want {
		if !g[s] {
			fmt.Fprintf(&b, "-%s\n", s)
		}
	}
	for _, s := range got {
		if !w[s] {
			fmt.Fprintf(&b, "+%s\n", s)
		}
	}
	return b.String()
}
