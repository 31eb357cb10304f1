# daygate — `make demo` runs the demo, `make test` runs the tests. Both install what is
# missing first (libsqlite3-dev from Debian's packages).
SWIFT ?= swift
DEMO_ARGS ?=

.PHONY: all deps build release demo test test-swift test-browser test-openapi clean

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

test: test-swift test-browser test-openapi

test-swift: deps
	$(SWIFT) test

# The dashboard in headless Chromium (Debian's package), driven by Playwright (PyPI).
test-browser: deps
	@scripts/ensure-deps.sh chromium
	@python3 -c "import playwright" 2>/dev/null || python3 -m pip install --quiet --disable-pip-version-check playwright
	$(SWIFT) build --product daygate
	python3 Tests/Browser/dashboard_test.py "$$($(SWIFT) build --show-bin-path)/daygate"

# /openapi.json validated as OpenAPI 3.1 and every documented route called against the demo
# (openapi-spec-validator and jsonschema from PyPI).
test-openapi: deps
	@python3 -c "import openapi_spec_validator" 2>/dev/null || python3 -m pip install --quiet --disable-pip-version-check openapi-spec-validator
	$(SWIFT) build --product daygate
	python3 Tests/OpenAPI/openapi_test.py "$$($(SWIFT) build --show-bin-path)/daygate"

clean:
	rm -rf .build .daygate-demo
