# Two commands do everything: `make run` and `make test`.
# The first use creates .venv and installs Standin with torch pinned to the
# CPU build of 2.13.0 (constraints.txt), never a multi-GB CUDA build.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.standin-installed

.PHONY: run test bench fuzz dist browser clean

$(STAMP): pyproject.toml constraints.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[test]'
	@touch $(STAMP)

run: $(STAMP)
	$(BIN)/python -m app $(SCRIPT)

# The HTML report is checked in a real headless browser: Debian's chromium.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing Debian's chromium for the browser test"; \
	  $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq --no-install-recommends chromium; }

test: $(STAMP) browser
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python -m bench $(ARGS)

# Random programs, eager vs Standin (README "Fuzzing"); not part of `make test`.
PROGRAMS ?= 10000
START ?= 0
fuzz: $(STAMP)
	$(BIN)/python tests/tracer/fuzz_run.py --programs $(PROGRAMS) --start $(START) $(ARGS)

dist: $(STAMP)
	packaging/build.sh

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .hypothesis dist build
