#!/usr/bin/env bash
# Install everything the test suite needs, from this repository's own files, into the active Python.
# CPU-only PyTorch is pinned (a plain `torch` pulls a multi-GB CUDA build); llama-cpp-python is built from source
# with GGML_NATIVE=OFF (a native build crashes on some CPUs) and without pip's cache (which would reuse a bad
# wheel whatever CMAKE_ARGS say).
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install --upgrade pip
python -m pip install torch==2.13.0
python -m pip install -e '.[dev,nli,train,llm,ray,plots]' -r requirements-test.txt
if [ -d plugins/ragjudge-embeddings ]; then
  python -m pip install ./plugins/ragjudge-embeddings
fi
if ! python -c "import llama_cpp.server" 2>/dev/null; then
  CMAKE_ARGS="-DGGML_NATIVE=OFF" python -m pip install --no-cache-dir 'llama-cpp-python[server]'
fi
