// Package examples_test builds the programs under examples/ and the Go
// snippets of the README in a module outside the repository, as a user who
// copies them would: with a replace directive pointing at this checkout,
// so with only the packages the module makes public (Go refuses an import
// of another module's internal packages).
package examples_test

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/dynamoseq/dynamoseq"

// TestOutsideModule copies every example's files (its tests and testdata
// too), changing only the import path of the example's own package, and a
// package per README snippet into a new module whose go.mod has the lines
// of the README's install note, and compiles all of it with its tests.
func TestOutsideModule(t *testing.T) {
	t.Parallel()
	_, here, _, _ := runtime.Caller(0)
	examples := filepath.Dir(here)
	repo := filepath.Dir(examples)
	readme, err := os.ReadFile(filepath.Join(repo, "README.md"))
	require.NoError(t, err)
	dir := t.TempDir()
	// The go.mod lines of the README's install note, the clone at repo.
	var lines []string
	for _, prefix := range []string{"require " + module + " ", "replace " + module + " => ../dynamoseq"} {
		i := strings.Index(string(readme), "\n"+prefix)
		require.GreaterOrEqual(t, i, 0, "README's install note has no line %q", prefix)
		line, _, _ := strings.Cut(string(readme[i+1:]), "\n")
		lines = append(lines, strings.Replace(line, "../dynamoseq", repo, 1))
	}
	write(t, filepath.Join(dir, "go.mod"), "module example.com/user\n\ngo 1.24\n\n"+strings.Join(lines, "\n\n")+"\n")
	sum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	require.NoError(t, err)
	write(t, filepath.Join(dir, "go.sum"), string(sum))

	names := copyExamples(t, examples, dir)
	require.Contains(t, names, "quickstart")
	snippets := goBlocks(string(readme))
	require.GreaterOrEqual(t, len(snippets), 10, "Go snippets in README.md")
	for i, code := range snippets {
		src, err := snippetFile(code)
		require.NoError(t, err, "README snippet %d:\n%s", i+1, code)
		write(t, filepath.Join(dir, "readme", fmt.Sprintf("snippet%02d", i+1), "snippet_test.go"), src)
	}

	run(t, dir, "go", "mod", "tidy")
	// Compiles every package with its tests and runs none of them (each
	// example's own test runs in this repository, on DynamoDB Local).
	out := run(t, dir, "go", "test", "-count=1", "-run", "^$", "./...")
	t.Logf("%d examples and %d README snippets built outside the repository:\n%s", len(names), len(snippets), out)
}

// copyExamples copies each example's folder into dir and returns the
// examples' names.
func copyExamples(t *testing.T, examples, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(examples)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		names = append(names, e.Name())
		from := filepath.Join(examples, e.Name())
		err := filepath.WalkDir(from, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(examples, path)
			if strings.HasSuffix(path, ".go") {
				b = bytes.ReplaceAll(b, []byte(`"`+module+`/examples/`), []byte(`"example.com/user/`))
			}
			write(t, filepath.Join(dir, rel), string(b))
			return nil
		})
		require.NoError(t, err)
	}
	return names
}

var goBlock = regexp.MustCompile("(?s)```go\n(.*?)```")

// goBlocks returns the code of the README's Go blocks.
func goBlocks(markdown string) []string {
	var blocks []string
	for _, m := range goBlock.FindAllStringSubmatch(markdown, -1) {
		blocks = append(blocks, m[1])
	}
	return blocks
}

// imports are the packages the README's snippets use, by the name they
// use them under.
var imports = map[string]string{
	"aws":            "github.com/aws/aws-sdk-go-v2/aws",
	"attributevalue": "github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue",
	"config":         "github.com/aws/aws-sdk-go-v2/config",
	"context":        "context",
	"credentials":    "github.com/aws/aws-sdk-go-v2/credentials",
	"dynamodb":       "github.com/aws/aws-sdk-go-v2/service/dynamodb",
	"dynamoseq":      module,
	"dynamoseqtest":  module + "/dynamoseqtest",
	"errors":         "errors",
	"fmt":            "fmt",
	"http":           "net/http",
	"math":           "math",
	"strconv":        "strconv",
	"testing":        "testing",
	"time":           "time",
	"types":          "github.com/aws/aws-sdk-go-v2/service/dynamodb/types",
}

// fragment is where a snippet of statements runs: the names the README
// leaves to the reader's code around it are the function's parameters
// (those of params the snippet does not declare itself) and the types above
// it.
const fragment = `
type Ticket struct{ Title string }
type Contract struct{ Customer string }
type Order struct{ Customer string }

func snippet(%s) error {
%s
	return nil
}
`

var params = [][2]string{
	{"ctx", "context.Context"}, {"t", "*testing.T"}, {"client", "*dynamodb.Client"},
	{"srv", "*dynamoseqtest.Server"}, {"counter", "*dynamoseq.Counter"},
	{"ticket", "Ticket"}, {"current", "Contract"}, {"order", "Order"},
}

// snippetFile makes a test file of a README snippet: declarations as they
// are, statements inside fragment, each variable they declare marked as
// used (a reader's code would go on using it).
func snippetFile(code string) (string, error) {
	body := code
	if _, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+code, 0); err != nil {
		f, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+fmt.Sprintf(fragment, "", code), 0)
		if err != nil {
			return "", err
		}
		names := declared(f)
		var in, used []string
		for _, p := range params {
			if !slices.Contains(names, p[0]) {
				in = append(in, p[0]+" "+p[1])
			}
		}
		for _, name := range names {
			used = append(used, "\t_ = "+name)
		}
		body = fmt.Sprintf(fragment, strings.Join(in, ", "), code+"\n"+strings.Join(used, "\n"))
	}
	f, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+body, 0)
	if err != nil {
		return "", err
	}
	var header strings.Builder
	header.WriteString("package snippet\n\nimport (\n")
	for _, name := range packagesUsed(f) {
		fmt.Fprintf(&header, "\t%q\n", imports[name])
	}
	header.WriteString(")\n")
	return header.String() + body, nil
}

// packagesUsed lists the names of imports that f's code (not its comments)
// uses.
func packagesUsed(f *ast.File) []string {
	var names []string
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if x, ok := sel.X.(*ast.Ident); ok && imports[x.Name] != "" {
				names = append(names, x.Name)
			}
		}
		return true
	})
	slices.Sort(names)
	return slices.Compact(names)
}

// declared lists the variables the statements of snippet declare.
func declared(f *ast.File) []string {
	var names []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "snippet" {
			continue
		}
		for _, st := range fn.Body.List {
			switch st := st.(type) {
			case *ast.AssignStmt:
				if st.Tok == token.DEFINE {
					for _, e := range st.Lhs {
						names = append(names, e.(*ast.Ident).Name)
					}
				}
			case *ast.DeclStmt:
				for _, spec := range st.Decl.(*ast.GenDecl).Specs {
					if vs, ok := spec.(*ast.ValueSpec); ok {
						for _, n := range vs.Names {
							names = append(names, n.Name)
						}
					}
				}
			}
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	return slices.DeleteFunc(names, func(n string) bool { return n == "_" })
}

func write(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

// run runs a command in dir and returns its output; it fails the test if
// the command fails.
func run(t *testing.T, dir string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s %s:\n%s", name, strings.Join(args, " "), out)
	return string(out)
}
