package dbtest

import (
	"bytes"
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
