# daygate — `make demo` runs the demo, `make test` runs the tests. Both install what is
# missing first (libsqlite3-dev from Debian's packages).
SWIFT ?= swift
DEMO_ARGS ?=

.PHONY: all deps build release demo test check clean

all: build

deps:
	@scripts/ensure-deps.sh

build: deps
	$(SWIFT) build --product daygate

release: deps
	$(SWIFT) build -c release --product daygate

demo: build
	$(SWIFT) build --product daygate --show-bin-path >/dev/null
	"$$($(SWIFT) build --show-bin-path)/daygate" demo $(DEMO_ARGS)

test: deps
	$(SWIFT) test

clean:
	rm -rf .build .daygate-demo
