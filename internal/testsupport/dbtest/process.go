package dbtest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// HelperEnv names the variable that tells a re-executed test binary which
// helper to run. A package's TestHelperProcess reads it with HelperArgs.
const HelperEnv = "DYNAMOSEQ_HELPER"

// RunProcesses starts n copies of the running test binary at once, each
// running only TestHelperProcess with the helper name and the env given (plus
// the test server's endpoint), waits for all of them and returns their
// standard outputs. A process that fails fails the test with its output.
// This is how a test shows what happens when separate OS processes share a
// table, as the instances of a service do.
func RunProcesses(tb testing.TB, n int, helper string, env ...string) [][]byte {
	tb.Helper()
	envs := make([][]string, n)
	for i := range envs {
		envs[i] = env
	}
	return RunProcessesEach(tb, helper, envs)
}

// RunProcessesEach is RunProcesses with one process for each element of
// envs, which gives that process's own variables: the processes of a test
// of global tables, each in its Region.
func RunProcessesEach(tb testing.TB, helper string, envs [][]string) [][]byte {
	tb.Helper()
	endpoint := Endpoint(tb)
	n := len(envs)
	outs := make([][]byte, n)
	errs := make([]error, n)
	stderrs := make([]bytes.Buffer, n)
	var wg sync.WaitGroup
	for i := range n {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), HelperEnv+"="+helper, EndpointEnv+"="+endpoint)
		cmd.Env = append(cmd.Env, envs[i]...)
		var stdout bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderrs[i]
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = cmd.Run()
			outs[i] = stdout.Bytes()
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			tb.Fatalf("helper process %d (%s): %v\nstdout:\n%s\nstderr:\n%s", i, helper, err, trimmed(outs[i]), trimmed(stderrs[i].Bytes()))
		}
	}
	return outs
}

// Lines returns the lines of out that start with prefix, with the prefix
// removed. Helpers print their results that way, apart from what the test
// framework itself prints.
func Lines(out []byte, prefix string) []string {
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(l, prefix); ok {
			lines = append(lines, rest)
		}
	}
	return lines
}

// Helper returns the helper a re-executed test binary must run, or "" in a
// normal test run.
func Helper() string { return os.Getenv(HelperEnv) }

// Processes are copies of the test binary started by StartProcesses, each
// waiting at a starting line so that their start-up is not part of what a
// benchmark times.
type Processes struct {
	tb      testing.TB
	helper  string
	cmds    []*exec.Cmd
	stdins  []io.WriteCloser
	outs    []*bytes.Buffer
	stderrs []*bytes.Buffer
	ready   []*bufio.Reader
}

// ReadyLine is what a helper process prints, alone on a line, when it is
// ready; it then waits for a line on its standard input (see AwaitGo).
const ReadyLine = "dbtest: ready"

// StartProcesses starts n copies of the running test binary, as
// RunProcesses does, and waits until each has printed ReadyLine. Go lets
// them all run on; Wait collects their outputs.
func StartProcesses(tb testing.TB, n int, helper string, env ...string) *Processes {
	tb.Helper()
	endpoint := Endpoint(tb)
	p := &Processes{tb: tb, helper: helper}
	for range n {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), HelperEnv+"="+helper, EndpointEnv+"="+endpoint)
		cmd.Env = append(cmd.Env, env...)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			tb.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			tb.Fatal(err)
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			tb.Fatalf("starting helper process %s: %v", helper, err)
		}
		p.cmds = append(p.cmds, cmd)
		p.stdins = append(p.stdins, stdin)
		p.stderrs = append(p.stderrs, &stderr)
		p.ready = append(p.ready, bufio.NewReader(stdout))
	}
	for i, r := range p.ready {
		var out bytes.Buffer
		for {
			line, err := r.ReadString('\n')
			out.WriteString(line)
			if strings.TrimSpace(line) == ReadyLine {
				break
			}
			if err != nil {
				p.kill()
				tb.Fatalf("helper process %d (%s) ended before it was ready: %v\nstdout:\n%s\nstderr:\n%s", i, helper, err, trimmed(out.Bytes()), trimmed(p.stderrs[i].Bytes()))
			}
		}
		p.outs = append(p.outs, &out)
	}
	return p
}

// Go lets every process past its starting line.
func (p *Processes) Go() {
	for _, w := range p.stdins {
		_, _ = io.WriteString(w, "go\n")
		_ = w.Close()
	}
}

// Wait waits for every process to exit and returns their standard outputs
// from the ready line on. A process that failed fails the test.
func (p *Processes) Wait() [][]byte {
	p.tb.Helper()
	outs := make([][]byte, len(p.cmds))
	for i, cmd := range p.cmds {
		rest, _ := io.ReadAll(p.ready[i])
		err := cmd.Wait()
		outs[i] = rest
		if err != nil {
			p.tb.Fatalf("helper process %d (%s): %v\nstdout:\n%s\nstderr:\n%s", i, p.helper, err, trimmed(rest), trimmed(p.stderrs[i].Bytes()))
		}
	}
	return outs
}

func (p *Processes) kill() {
	for _, cmd := range p.cmds {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
}

// AwaitGo is what a helper process started by StartProcesses calls when it
// is ready: it prints ReadyLine and waits for Go.
func AwaitGo() {
	fmt.Println(ReadyLine)
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
}
