# Two commands do everything: `make run` and `make test`.
# The first use creates .venv and installs Standin with torch pinned to the
# CPU build of 2.13.0 (constraints.txt), never a multi-GB CUDA build.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.standin-installed

.PHONY: run test lint bench fuzz fuzz-families dist browser qt screen clean

$(STAMP): pyproject.toml constraints.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[test]'
	@touch $(STAMP)

run: $(STAMP) qt
	$(BIN)/python -m app $(SCRIPT)

# The HTML report is checked in a real headless browser: Debian's chromium.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing Debian's chromium for the browser test"; \
	  $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq --no-install-recommends chromium; }

# Qt's xcb platform plugin needs these on a fresh Debian machine, or the window aborts at start.
QT_DEBS := libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0 libxcb-render-util0 libxcb-xinerama0 \
           libxcb-xkb1 libxcb-shape0 libxcb-randr0 libxkbcommon-x11-0 libegl1 libgl1 libfontconfig1 libdbus-1-3
qt:
	@dpkg -s $(QT_DEBS) >/dev/null 2>&1 || { \
	  echo "installing the libraries Qt needs to open a window"; \
	  $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq --no-install-recommends $(QT_DEBS); }

# The real-screen test runs `standin SCRIPT` under Xvfb with a small window manager and drives keys with xdotool.
SCREEN_DEBS := xvfb xdotool openbox
screen: qt
	@dpkg -s $(SCREEN_DEBS) >/dev/null 2>&1 || { \
	  echo "installing Xvfb, xdotool and openbox for the real-screen test"; \
	  $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq --no-install-recommends $(SCREEN_DEBS); }

# The house rules a machine can check (pyproject.toml): ruff and the import-linter contracts, then the suite.
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports

test: $(STAMP) lint browser screen
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python -m bench $(ARGS)

# Random programs, eager vs Standin (README "Fuzzing"); not part of `make test`.
PROGRAMS ?= 10000
START ?= 0
fuzz: $(STAMP)
	$(BIN)/python tests/tracer/fuzz_run.py --programs $(PROGRAMS) --start $(START) $(ARGS)

# Small generated programs per family, eager vs Standin vs real Dynamo (README "Fuzzing"); not in `make test`.
FAMILY_PROGRAMS ?= 200
fuzz-families: $(STAMP)
	nice -n 10 $(BIN)/python tests/tracer/fuzz_families_run.py --programs $(FAMILY_PROGRAMS) --start $(START) $(ARGS)

# Mutation testing of the guard engine, side effects, codegen, resume and the debugger (not in
# `make test` or CI: it takes hours). MODULES= chooses some (guards.compiled guards.kinds guards.whatif
# guards.report guards.native side_effects codegen resume debug).
mutate: $(STAMP)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[mutate]'
	nice -n 10 $(BIN)/python -m mutation --max-children 1 $(MODULES)

dist: $(STAMP)
	packaging/build.sh

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .hypothesis dist build
