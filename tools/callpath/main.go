// Command callpath lists the files of the module that one warm call of a
// strategy (-strategy: SortKey.Append, Latest.Append or Counter.Next) runs
// code in: it runs TestCallPath (build tag callpath) twice with statement
// counts, with 0 and with -calls calls after the warm-up, and prints each
// file holding a block that ran on at least 3/4 of the extra calls. It exits 1 when there are more than -max files.
// Only the library's packages (the root and what it imports from the
// module) are counted: the test harness (DynamoDB Local's process, the
// test tables) runs on every call too, but is not the library's path.
// `make callpath` runs it; docs/architecture.md names the files.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

func main() {
	strategy := flag.String("strategy", "sortkey", "sortkey, latest or counter")
	calls := flag.Int("calls", 20, "calls beyond the warm-up in the second run")
	most := flag.Int("max", 8, "the most files one Append may run code in")
	flag.Parse()
	dir, err := os.MkdirTemp("", "callpath")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	pkgs, err := libraryPackages()
	if err != nil {
		fail(err)
	}
	base, err := counts(filepath.Join(dir, "base.out"), pkgs, *strategy, 0)
	if err != nil {
		fail(err)
	}
	more, err := counts(filepath.Join(dir, "more.out"), pkgs, *strategy, *calls)
	if err != nil {
		fail(err)
	}
	files := map[string]int{}
	for block, n := range more {
		if n-base[block] >= *calls*3/4 {
			files[strings.SplitN(block, ":", 2)[0]]++
		}
	}
	names := make([]string, 0, len(files))
	for f := range files {
		names = append(names, f)
	}
	sort.Strings(names)
	for _, f := range names {
		fmt.Printf("%4d blocks  %s\n", files[f], f)
	}
	fmt.Printf("%s: %d files (at most %d)\n", *strategy, len(names), *most)
	if len(names) > *most {
		os.Exit(1)
	}
}

// libraryPackages returns the module's packages that the library package
// (the root) is built from, comma-separated for -coverpkg.
func libraryPackages() (string, error) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if .Module}}{{if .Module.Main}}{{.ImportPath}}{{end}}{{end}}", ".").Output()
	if err != nil {
		return "", fmt.Errorf("go list -deps: %w", err)
	}
	return strings.Join(strings.Fields(string(out)), ","), nil
}

// counts runs TestCallPath for strategy with n calls after the warm-up,
// counting the statements of pkgs, and returns each block's count from its
// profile.
func counts(profile, pkgs, strategy string, n int) (map[string]int, error) {
	cmd := exec.Command("go", "test", "-tags", "callpath", "-run", "^TestCallPath$", "-count=1",
		"-covermode=count", "-coverpkg="+pkgs, "-coverprofile="+profile, ".")
	cmd.Env = append(os.Environ(), "CALLPATH_STRATEGY="+strategy, "CALLPATH_CALLS="+strconv.Itoa(n))
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go test -tags callpath: %w", err)
	}
	f, err := os.Open(profile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	blocks := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		i := strings.LastIndexByte(line, ' ')
		if strings.HasPrefix(line, "mode:") || i < 0 {
			continue
		}
		c, err := strconv.Atoi(line[i+1:])
		if err != nil {
			return nil, fmt.Errorf("%s: %q: %w", profile, line, err)
		}
		block := strings.TrimPrefix(line[:i], "github.com/dynamoseq/dynamoseq/")
		blocks[block] += c
	}
	return blocks, sc.Err()
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "callpath:", err)
	os.Exit(2)
}
