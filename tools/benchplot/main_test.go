package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sample is two windows (bucket depths) of each side of a sweep row and a
// 16-writer row, and a line in the older form without depth and seed.
const sample = `BenchmarkModel/sortkey/ondemand/writers=1/burst=20ms/seed=1/baseline-2 	 1	 1 ns/op	 40 ops/s	 0.2 numbers/wu	 10 p50-ms	 20 p99-ms
BenchmarkModel/sortkey/ondemand/writers=1/burst=20ms/seed=1/dynamoseq-2 	 1	 1 ns/op	 50 ops/s	 0.5 numbers/wu	 9 p50-ms	 18 p99-ms
BenchmarkModel/sortkey/ondemand/writers=1/burst=1s/seed=1/baseline-2 	 1	 1 ns/op	 44 ops/s	 0.2 numbers/wu	 10 p50-ms	 20 p99-ms
BenchmarkModel/sortkey/ondemand/writers=1/burst=1s/seed=1/dynamoseq-2 	 1	 1 ns/op	 60 ops/s	 0.5 numbers/wu	 9 p50-ms	 18 p99-ms
BenchmarkModel/sortkey/ondemand/writers=16/burst=20ms/seed=1/baseline-2 	 1	 1 ns/op	 40 ops/s	 0.13 numbers/wu	 100 p50-ms	 900 p99-ms
BenchmarkModel/sortkey/ondemand/writers=16/burst=20ms/seed=1/dynamoseq-2 	 1	 1 ns/op	 400 ops/s	 0.5 numbers/wu	 40 p50-ms	 90 p99-ms
BenchmarkModel/sortkey/ondemand/writers=16/burst=1s/seed=1/baseline-2 	 1	 1 ns/op	 30 ops/s	 0.13 numbers/wu	 100 p50-ms	 900 p99-ms
BenchmarkModel/sortkey/ondemand/writers=16/burst=1s/seed=1/dynamoseq-2 	 1	 1 ns/op	 460 ops/s	 0.49 numbers/wu	 40 p50-ms	 90 p99-ms
BenchmarkModel/latest/ondemand/writers=16/dynamoseq-2 	 1	 1 ns/op	 400 ops/s
BenchmarkCounterNext/goroutines=1/baseline-2 	 100	 1000 ns/op
`

// The windows of a row (its depths and seeds) are read into one result,
// whose median and spread cover them all; other benchmarks are left out.
func TestParseWindows(t *testing.T) {
	results, err := parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	r := results[key{"sortkey", "ondemand", "writers=16", "dynamoseq"}]
	if m, _ := r.median("ops/s"); m != 430 {
		t.Errorf("median ops/s of two windows = %v, want 430", m)
	}
	if lo, hi := r.spread("ops/s"); lo != 400 || hi != 460 {
		t.Errorf("spread of ops/s = %v-%v, want 400-460", lo, hi)
	}
	if _, ok := results[key{"latest", "ondemand", "writers=16", "dynamoseq"}]; !ok {
		t.Error("a line without depth and seed was not read")
	}
	if len(results) != 5 {
		t.Errorf("%d rows read, want 5 (4 sortkey, 1 latest)", len(results))
	}
}

// Every chart is written, the bar charts of useful work among them, and
// none of the share of the ceiling.
func TestDrawAll(t *testing.T) {
	results, err := parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files, err := drawAll(results, dir, ".svg")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"throughput-sortkey.svg", "latency-sortkey.svg", "throughput-latest.svg", "numbers-per-second.svg", "numbers-per-unit.svg"}
	if len(files) != len(want) {
		t.Errorf("drawAll wrote %v, want %v", files, want)
	}
	for _, w := range want {
		b, err := os.ReadFile(filepath.Join(dir, w))
		if err != nil {
			t.Errorf("%s: %v", w, err)
			continue
		}
		if !strings.Contains(string(b), "dynamoseq") {
			t.Errorf("%s has no legend naming dynamoseq", w)
		}
		if !strings.Contains(w, "latest") && !strings.Contains(string(b), "recipe") {
			t.Errorf("%s has no legend naming the recipe", w) // the sample has no recipe of Latest
		}
	}
}
