# Two commands do all the set-up on a fresh machine with Python 3.11 and pip:
#   make run    install, then open the leaderboard Space on the embedded synthetic release
#   make test   install, then lint, type-check and run the whole test suite
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: run test install install-test lint clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

install: $(BIN)/python
	$(BIN)/pip install --quiet -e '.[space]'

install-test: $(BIN)/python
	$(BIN)/pip install --quiet -e '.[space,test]'

run: install
	$(BIN)/medqade space

lint: install-test
	$(BIN)/ruff check src tests bench evaluate.py $(wildcard space)
	$(BIN)/ruff format --check src tests bench evaluate.py $(wildcard space)
	$(BIN)/mypy

test: lint
	$(BIN)/python -m pytest -n auto -q

clean:
	rm -rf $(VENV) medqade build dist .pytest_cache .mypy_cache .ruff_cache
