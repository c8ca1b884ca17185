# Two commands do everything: `make run` and `make test`.
# The first use creates .venv and installs Standin with torch pinned to the
# CPU build of 2.13.0 (constraints.txt), never a multi-GB CUDA build.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.standin-installed

.PHONY: run test bench clean

$(STAMP): pyproject.toml constraints.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[test]'
	@touch $(STAMP)

run: $(STAMP)
	$(BIN)/python -m app $(SCRIPT)

test: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python -m bench $(ARGS)

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .hypothesis
