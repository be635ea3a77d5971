# Two commands do all the set-up on a fresh machine with Python 3.11 and pip:
#   make run    install, then open the leaderboard Space on the embedded synthetic release
#               (make run PORT=8080 picks the port; default 7860)
#   make test   install, then lint, type-check, check the import layers and run the whole test suite
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: run test install install-test lint clean

# pip prints each package it collects and a progress bar per download (no --quiet: the first
# install takes a few minutes and should not look stuck); stamps skip it once it is done.
PIP := $(BIN)/python -m pip install --progress-bar on

$(BIN)/python:
	@echo "==> creating $(VENV) with $(PYTHON)"
	$(PYTHON) -m venv $(VENV)
	$(PIP) --upgrade pip

$(VENV)/.installed-space: pyproject.toml | $(BIN)/python
	@echo "==> installing MedQADE with the Space's dependencies (first time: a few minutes)"
	$(PIP) -e '.[space]'
	@touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	@echo "==> installing MedQADE with the Space's and the tests' dependencies"
	$(PIP) -e '.[space,test]'
	@touch $@ $(VENV)/.installed-space

install: $(VENV)/.installed-space

install-test: $(VENV)/.installed-test

# PORT=8080 serves on another port; empty = Gradio's 7860 (or GRADIO_SERVER_PORT)
PORT ?=

run: install
	@echo "==> starting the Space (the first start builds the synthetic release, about a"
	@echo "    minute, step by step); it prints its address once it serves"
	$(BIN)/medqade space$(if $(PORT), --port $(PORT))

lint: install-test
	$(BIN)/ruff check src tests bench evaluate.py $(wildcard space)
	$(BIN)/ruff format --check src tests bench evaluate.py $(wildcard space)
	$(BIN)/mypy
	$(BIN)/lint-imports

test: lint
	$(BIN)/python -m pytest -n auto -q

clean:
	rm -rf $(VENV) medqade build dist .pytest_cache .mypy_cache .ruff_cache
